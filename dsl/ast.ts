/**
 * The dshpolicy AST: what the CST visitor (`cst-to-ast.ts`) builds and what the checks and the
 * lowering read. Every node carries the span of the text it came from.
 */
import type { Span } from '../engine/index.js';

interface NodeBase {
  span: Span;
}

// ---------------------------------------------------------------- literals and values

export interface Ident extends NodeBase {
  kind: 'ident';
  name: string;
}

export interface StringLit extends NodeBase {
  kind: 'string';
  /** The decoded value (escapes applied). */
  value: string;
}

export interface RegexLit extends NodeBase {
  kind: 'regex';
  /** The pattern between the slashes, with `\/` turned back into `/`. */
  source: string;
  flags: string;
  /** Offset (in the file) of the first character of the pattern, to place errors inside the regex. */
  sourceOffset: number;
}

export interface NumberLit extends NodeBase {
  kind: 'number';
  value: number;
}

export interface DurationLit extends NodeBase {
  kind: 'duration';
  /** Milliseconds. */
  ms: number;
  text: string;
}

export interface BoolLit extends NodeBase {
  kind: 'bool';
  value: boolean;
}

export interface NullLit extends NodeBase {
  kind: 'null';
}

/** A reference to a `let` name. */
export interface Ref extends NodeBase {
  kind: 'ref';
  name: string;
}

export interface ListLit extends NodeBase {
  kind: 'list';
  items: ValueNode[];
}

export interface ObjectEntry extends NodeBase {
  key: string;
  keySpan: Span;
  value: ValueNode;
}

export interface ObjectLit extends NodeBase {
  kind: 'object';
  entries: ObjectEntry[];
}

export type ValueNode =
  | StringLit
  | RegexLit
  | NumberLit
  | DurationLit
  | BoolLit
  | NullLit
  | Ref
  | ListLit
  | ObjectLit;

// ---------------------------------------------------------------- top-level items

export interface PolicyDecl extends NodeBase {
  kind: 'policy';
  name: StringLit;
}

export interface IncludeDecl extends NodeBase {
  kind: 'include';
  path: StringLit;
}

/** `import <agent> <what> "<path>"`, e.g. `import claude hooks "./.claude/settings.json"`. */
export interface ImportDecl extends NodeBase {
  kind: 'import';
  agent: Ident;
  what: Ident;
  path: StringLit;
}

export interface LetDecl extends NodeBase {
  kind: 'let';
  name: Ident;
  value: ValueNode;
}

export interface OnBlock extends NodeBase {
  kind: 'on';
  /** The seam name as written (`pre-tool`, ...); the checks validate it. */
  seam: Ident;
  rules: RuleNode[];
}

export interface TestBlock extends NodeBase {
  kind: 'test';
  name: StringLit;
  cases: TestCaseNode[];
}

/**
 * `unprotect claude, codex`: the groups of self-protection the policy opts out of, as written
 * (`policy`, `claude`, `codex`, `gemini`, or `*` for all); the checks validate them.
 */
export interface UnprotectDecl extends NodeBase {
  kind: 'unprotect';
  targets: Ident[];
}

export type Item = PolicyDecl | IncludeDecl | ImportDecl | LetDecl | OnBlock | TestBlock | UnprotectDecl;

export interface PolicyFile extends NodeBase {
  kind: 'file';
  file: string;
  items: Item[];
}

// ---------------------------------------------------------------- rules

/** A tool name or glob in a rule's tool list (`Bash`, `mcp__db__*`, `*`). */
export interface ToolPattern extends NodeBase {
  kind: 'tool';
  name: string;
}

/** `command "a", "b"` / `path secrets` / `url ...` / `domain ...`. */
export interface SelectorNode extends NodeBase {
  kind: 'selector';
  /** As written; the checks validate it is one of command, path, url, domain. */
  selector: Ident;
  values: ValueNode[];
}

export interface HookClause extends NodeBase {
  kind: 'hook';
  command: StringLit;
}

/**
 * `with { args: [...], shell: "bash", plugin_root: "...", if: "..." }`: more properties of a
 * `run` rule's hook, as an agent's hooks file gives them. The keys and values are checked later.
 */
export interface WithClause extends NodeBase {
  kind: 'with';
  options: ObjectLit;
}

/**
 * One rule. The grammar accepts the clauses in any order, each at most once (a repeat is a parse
 * error); the checks decide which clauses each effect allows (e.g. only `context` has `text`,
 * only `limit` has `limit`, only `run` has `hook`, and `with` goes with a `hook`).
 */
export interface RuleNode extends NodeBase {
  kind: 'rule';
  /** deny, ask, allow, block, context, continue, halt, run, limit: as written. */
  effect: Ident;
  tools: ToolPattern[];
  selectors: SelectorNode[];
  /** The text of a `context` rule: a string, or a reference to a `let` string. */
  text?: StringLit | Ref;
  hook?: HookClause;
  timeout?: DurationLit;
  dialect?: Ident;
  /**
   * `matcher "<pattern>"`: the agent's matcher, in the dialect's syntax; `matcher *` is an Ident
   * `*` (every value). Either makes the rule say what a handler in an agent's hooks file says.
   */
  matcher?: StringLit | Ident;
  /** `with { ... }`: the hook's `args`, `shell`, `plugin_root` and `if`. */
  with?: WithClause;
  when?: ExprNode;
  because?: StringLit | Ref;
  /** The count of `limit N`. */
  limit?: NumberLit;
}

// ---------------------------------------------------------------- expressions

export interface FieldNode extends NodeBase {
  kind: 'field';
  /** `input.sql` is `["input", "sql"]`. */
  path: string[];
}

export interface AndExpr extends NodeBase {
  kind: 'and';
  args: ExprNode[];
}

export interface OrExpr extends NodeBase {
  kind: 'or';
  args: ExprNode[];
}

export interface NotExpr extends NodeBase {
  kind: 'not';
  arg: ExprNode;
}

export interface CompareExpr extends NodeBase {
  kind: 'compare';
  /** `==`, `!=`, `in`, `matches`, `glob`, `startswith`, `endswith`, `contains`. */
  op: string;
  opSpan: Span;
  field: FieldNode;
  value: ValueNode;
}

export interface ExistsExpr extends NodeBase {
  kind: 'exists';
  field: FieldNode;
}

export interface RanExpr extends NodeBase {
  kind: 'ran';
  tools: ToolPattern[];
  selectors: SelectorNode[];
}

export interface BoolExpr extends NodeBase {
  kind: 'boolexpr';
  value: boolean;
}

export type ExprNode = AndExpr | OrExpr | NotExpr | CompareExpr | ExistsExpr | RanExpr | BoolExpr;

// ---------------------------------------------------------------- tests

/**
 * One case of a `test` block:
 *   `pre-tool Bash { command: "ls" } with { cwd: "/repo" } => allow because /reason/`
 *   `prompt "text" => block`, `stop { turn: [] } => continue`, `event { hook_event_name: ... } => deny`
 */
export interface TestCaseNode extends NodeBase {
  kind: 'case';
  /** The seam word as written, or `event` for a raw agent payload. */
  seam: Ident;
  tool?: ToolPattern;
  /** The tool input (tool seams), the prompt (string or object), or the event fields. */
  payload?: StringLit | ObjectLit;
  /** `with { ... }`: more event fields (cwd, output, ...). */
  extra?: ObjectLit;
  expect: Ident;
  because?: RegexLit | StringLit;
}
