/**
 * Answers the checks and lints ask for more than once, remembered: the engine's pattern validators
 * and tool-glob compiler (by their input, for the whole process), and the lowered form of a rule's
 * selectors and of a condition (by AST node, for one check). Each is a pure function of what it is
 * keyed by, so it is shared; callers must not change what they get. Lowering for the IR (lower.ts)
 * does not use these.
 */
import {
  checkCommandPattern,
  checkGlob,
  compileToolGlob,
  type GlobKind,
  type MatchError,
  type Matcher,
  type Selector,
} from '../engine/index.js';
import type { ExprNode, RuleNode } from './ast.js';
import { lowerExpr, lowerSelectors } from './lower-expr.js';
import type { FileScope } from './scope.js';

/** Each cache is emptied when it reaches this size, so memory stays bounded in a long process. */
const MAX_ENTRIES = 20_000;

function store<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, value);
  return value;
}

const globs: Record<GlobKind, Map<string, MatchError | null>> = {
  tool: new Map(),
  path: new Map(),
  url: new Map(),
  domain: new Map(),
};

/** `checkGlob`, remembered. */
export function globProblem(glob: string, kind: GlobKind): MatchError | null {
  const cache = globs[kind];
  if (typeof glob !== 'string' || cache === undefined) return checkGlob(glob, kind);
  const hit = cache.get(glob);
  return hit !== undefined ? hit : store(cache, glob, checkGlob(glob, kind));
}

const commandPatterns = new Map<string, ReturnType<typeof checkCommandPattern>>();

/** `checkCommandPattern`, remembered. */
export function commandPatternProblem(pattern: string): ReturnType<typeof checkCommandPattern> {
  if (typeof pattern !== 'string') return checkCommandPattern(pattern);
  const hit = commandPatterns.get(pattern);
  return hit !== undefined ? hit : store(commandPatterns, pattern, checkCommandPattern(pattern));
}

const toolGlobs = new Map<string, Matcher>();

/** `compileToolGlob`, remembered. */
export function toolGlob(glob: string): Matcher {
  if (typeof glob !== 'string') return compileToolGlob(glob);
  return toolGlobs.get(glob) ?? store(toolGlobs, glob, compileToolGlob(glob));
}

/**
 * Lowered forms the checks and lints share, for one check of one set of files (where each AST node
 * is in exactly one file, so its scope is known from the node): a rule's selectors, and the
 * canonical text of a condition. Made per check, so nothing outlives it.
 */
export class Lowered {
  private readonly selectors = new Map<RuleNode, Selector[] | undefined>();
  private readonly keys = new Map<ExprNode, string | undefined>();

  /** `lowerSelectors` of a rule's selectors. */
  selectorsOf(rule: RuleNode, scope: FileScope): readonly Selector[] | undefined {
    let value = this.selectors.get(rule);
    if (value === undefined && !this.selectors.has(rule)) {
      value = lowerSelectors(rule.selectors, scope);
      this.selectors.set(rule, value);
    }
    return value;
  }

  /** `JSON.stringify(lowerExpr(e, scope))`, undefined when it does not lower. */
  keyOf(e: ExprNode, scope: FileScope): string | undefined {
    let value = this.keys.get(e);
    if (value === undefined && !this.keys.has(e)) {
      const lowered = lowerExpr(e, scope);
      value = lowered === undefined ? undefined : JSON.stringify(lowered);
      this.keys.set(e, value);
    }
    return value;
  }

  /**
   * The canonical forms (as `keyOf`) of the conjuncts of a condition: of each part of an `and`
   * (nested `and`s flattened, as `lowerExpr` flattens them), or of the condition itself. Undefined
   * when the condition does not lower.
   */
  conjunctKeys(e: ExprNode, scope: FileScope): string[] | undefined {
    if (e.kind !== 'and') {
      const key = this.keyOf(e, scope);
      return key === undefined ? undefined : [key];
    }
    const out: string[] = [];
    const walk = (c: ExprNode): boolean => {
      if (c.kind === 'and') return c.args.every(walk);
      const key = this.keyOf(c, scope);
      if (key === undefined) return false;
      out.push(key);
      return true;
    };
    return walk(e) ? out : undefined;
  }
}
