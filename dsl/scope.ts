/**
 * Stage 2, names: resolves `let` names.
 *
 * A `let` name is visible in the file that defines it, and only there: an included file does not
 * see the names of the file that includes it, nor the other way round. Within a file the order of
 * definitions does not matter, a value may refer to other names (cycles are errors), and a name is
 * defined at most once.
 */
import { diagnostic, type Diagnostic } from '../engine/index.js';
import type { ExprNode, Item, LetDecl, Ref, RuleNode, SelectorNode, TestCaseNode, ValueNode } from './ast.js';
import type { LoadedFile } from './load.js';
import { didYouMean } from './suggest.js';

export interface FileScope {
  /** The first definition of each name. */
  readonly lets: ReadonlyMap<string, LetDecl>;
  /**
   * Each name's value with every reference replaced by the value it names; null when the value
   * cannot be known (a cycle or an unknown name inside it: already reported).
   */
  readonly values: ReadonlyMap<string, ValueNode | null>;
}

export interface ScopedFile extends LoadedFile {
  readonly scope: FileScope;
}

export interface ResolveResult {
  files: ScopedFile[];
  diagnostics: Diagnostic[];
}

export function resolveNames(files: readonly LoadedFile[]): ResolveResult {
  const diagnostics: Diagnostic[] = [];
  const scoped = files.filter((f) => f.parsed).map((f) => ({ ...f, scope: resolveFile(f, diagnostics) }));
  return { files: scoped, diagnostics };
}

function resolveFile(file: LoadedFile, diagnostics: Diagnostic[]): FileScope {
  const lets = new Map<string, LetDecl>();
  for (const item of file.ast.items) {
    if (item.kind !== 'let') continue;
    const first = lets.get(item.name.name);
    if (first) {
      diagnostics.push(
        diagnostic('check/duplicate-let', 'error', `\`${item.name.name}\` is already defined`, {
          span: item.name.span,
          help: `the first definition is at line ${first.span.start.line}; a name is defined once per file`,
        }),
      );
      continue;
    }
    lets.set(item.name.name, item);
  }

  const values = new Map<string, ValueNode | null>();
  const active: string[] = [];

  const unknown = (ref: Ref): void => {
    diagnostics.push(
      diagnostic('check/unknown-name', 'error', `\`${ref.name}\` is not defined`, {
        span: ref.span,
        help: didYouMean(ref.name, lets.keys()) ?? 'define it with `let` in this file; names are not shared between files',
      }),
    );
  };

  const resolveLet = (name: string): ValueNode | null => {
    const done = values.get(name);
    if (done !== undefined) return done;
    const decl = lets.get(name)!;
    active.push(name);
    const value = substitute(decl.value);
    active.pop();
    values.set(name, value);
    return value;
  };

  const substitute = (node: ValueNode): ValueNode | null => {
    switch (node.kind) {
      case 'ref': {
        if (!lets.has(node.name)) {
          unknown(node);
          return null;
        }
        const at = active.indexOf(node.name);
        if (at >= 0) {
          const loop = [...active.slice(at), node.name].join(' -> ');
          diagnostics.push(
            diagnostic('check/let-cycle', 'error', `\`${node.name}\` refers to itself: \`${loop}\``, {
              span: node.span,
              help: 'a `let` value cannot refer to its own name, directly or through other names',
            }),
          );
          return null;
        }
        return resolveLet(node.name);
      }
      case 'list': {
        const items: ValueNode[] = [];
        let ok = true;
        for (const item of node.items) {
          const value = substitute(item);
          if (value === null) ok = false;
          else items.push(value);
        }
        return ok ? { ...node, items } : null;
      }
      case 'object': {
        const entries = [];
        let ok = true;
        for (const entry of node.entries) {
          const value = substitute(entry.value);
          if (value === null) ok = false;
          else entries.push({ ...entry, value });
        }
        return ok ? { ...node, entries } : null;
      }
      default:
        return node;
    }
  };

  for (const name of lets.keys()) resolveLet(name);

  // Every other use of a name: unknown ones are reported here, once, so later stages skip them.
  for (const ref of refsOfFile(file.ast.items)) {
    if (!lets.has(ref.name)) unknown(ref);
  }
  return { lets, values };
}

/** The references outside `let` values, in source order. */
function refsOfFile(items: readonly Item[]): Ref[] {
  const out: Ref[] = [];
  for (const item of items) {
    if (item.kind === 'on') for (const rule of item.rules) refsOfRule(rule, out);
    else if (item.kind === 'test') for (const c of item.cases) refsOfCase(c, out);
  }
  return out;
}

function refsOfRule(rule: RuleNode, out: Ref[]): void {
  refsOfSelectors(rule.selectors, out);
  if (rule.text) refsOfValue(rule.text, out);
  if (rule.because) refsOfValue(rule.because, out);
  if (rule.when) refsOfExpr(rule.when, out);
  if (rule.with) refsOfValue(rule.with.options, out);
}

function refsOfSelectors(selectors: readonly SelectorNode[], out: Ref[]): void {
  for (const s of selectors) for (const v of s.values) refsOfValue(v, out);
}

function refsOfExpr(e: ExprNode, out: Ref[]): void {
  switch (e.kind) {
    case 'and':
    case 'or':
      for (const a of e.args) refsOfExpr(a, out);
      return;
    case 'not':
      refsOfExpr(e.arg, out);
      return;
    case 'compare':
      refsOfValue(e.value, out);
      return;
    case 'ran':
      refsOfSelectors(e.selectors, out);
      return;
    default:
      return;
  }
}

function refsOfCase(c: TestCaseNode, out: Ref[]): void {
  if (c.payload) refsOfValue(c.payload, out);
  if (c.extra) refsOfValue(c.extra, out);
}

function refsOfValue(v: ValueNode, out: Ref[]): void {
  if (v.kind === 'ref') out.push(v);
  else if (v.kind === 'list') for (const item of v.items) refsOfValue(item, out);
  else if (v.kind === 'object') for (const entry of v.entries) refsOfValue(entry.value, out);
}

/**
 * The value of `node` with every reference replaced; null when some name in it is unknown or
 * broken (already reported by this stage).
 */
export function deref(node: ValueNode, scope: FileScope): ValueNode | null {
  switch (node.kind) {
    case 'ref':
      return scope.values.get(node.name) ?? null;
    case 'list': {
      const items: ValueNode[] = [];
      for (const item of node.items) {
        const value = deref(item, scope);
        if (value === null) return null;
        items.push(value);
      }
      return { ...node, items };
    }
    case 'object': {
      const entries = [];
      for (const entry of node.entries) {
        const value = deref(entry.value, scope);
        if (value === null) return null;
        entries.push({ ...entry, value });
      }
      return { ...node, entries };
    }
    default:
      return node;
  }
}

/** "a string", "a regex", ...: what a value is, for messages. */
export function describeValue(node: ValueNode): string {
  switch (node.kind) {
    case 'string':
      return 'a string';
    case 'regex':
      return 'a regex';
    case 'number':
      return 'a number';
    case 'duration':
      return 'a duration';
    case 'bool':
      return 'a boolean';
    case 'null':
      return '`null`';
    case 'list':
      return 'a list';
    case 'object':
      return 'an object';
    case 'ref':
      return `\`${node.name}\``;
  }
}

/** What a value written as `written` turned out to be: "`secrets` is a regex" or "this is a regex". */
export function describeUse(written: ValueNode, resolved: ValueNode): string {
  return written.kind === 'ref' ? `\`${written.name}\` is ${describeValue(resolved)}` : `this is ${describeValue(resolved)}`;
}
