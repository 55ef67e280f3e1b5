/**
 * The shape of the concrete syntax tree the parser builds, one interface per grammar rule.
 *
 * Every child list may be missing: error recovery can leave any part of a node out. Tokens that
 * recovery inserted have `isInsertedInRecovery` set, an empty image and no position.
 */
import type { CstNode, IToken } from 'chevrotain';

interface Node<C> extends CstNode {
  readonly children: C & CstNode['children'];
}

type Tok = IToken[] | undefined;

export type FileCst = Node<{ item?: ItemCst[] }>;

export type ItemCst = Node<{
  policyDecl?: PolicyDeclCst[];
  includeDecl?: IncludeDeclCst[];
  importDecl?: ImportDeclCst[];
  letDecl?: LetDeclCst[];
  onBlock?: OnBlockCst[];
  testBlock?: TestBlockCst[];
  unprotectDecl?: UnprotectDeclCst[];
}>;

export type PolicyDeclCst = Node<{ keyword?: Tok; name?: Tok }>;
export type IncludeDeclCst = Node<{ keyword?: Tok; path?: Tok }>;
export type ImportDeclCst = Node<{ keyword?: Tok; agent?: Tok; what?: Tok; path?: Tok }>;
export type LetDeclCst = Node<{ keyword?: Tok; name?: Tok; value?: ValueCst[] }>;
/** `unprotect <group>, ...`: each group's token (a name, or the keyword `policy`) in order. */
export type UnprotectDeclCst = Node<{ keyword?: Tok; target?: Tok }>;
export type OnBlockCst = Node<{ keyword?: Tok; seam?: Tok; LCurly?: Tok; rule?: RuleCst[]; stray?: StrayCst[]; RCurly?: Tok }>;
export type TestBlockCst = Node<{
  keyword?: Tok;
  name?: Tok;
  LCurly?: Tok;
  testCase?: TestCaseCst[];
  stray?: StrayCst[];
  RCurly?: Tok;
}>;

/** Tokens skipped, after one error, where no rule, clause or test case could start. */
export type StrayCst = Node<{ token?: Tok }>;

/** A rule keeps its clauses in the order written; each list holds the repeats of one clause kind. */
export type RuleCst = Node<{
  effect?: Tok;
  toolList?: ToolListCst[];
  selector?: SelectorCst[];
  text?: Tok;
  hookClause?: HookClauseCst[];
  timeoutClause?: TimeoutClauseCst[];
  dialectClause?: DialectClauseCst[];
  matcherClause?: MatcherClauseCst[];
  withClause?: WithClauseCst[];
  whenClause?: WhenClauseCst[];
  becauseClause?: BecauseClauseCst[];
  limit?: Tok;
  stray?: StrayCst[];
}>;

export type ToolListCst = Node<{ tool?: Tok }>;
export type SelectorCst = Node<{ kind?: Tok; value?: ValueCst[] }>;
export type HookClauseCst = Node<{ keyword?: Tok; command?: Tok }>;
export type TimeoutClauseCst = Node<{ keyword?: Tok; duration?: Tok }>;
export type DialectClauseCst = Node<{ keyword?: Tok; dialect?: Tok }>;
export type MatcherClauseCst = Node<{ keyword?: Tok; pattern?: Tok; any?: Tok }>;
export type WithClauseCst = Node<{ keyword?: Tok; options?: ObjectCst[] }>;
export type WhenClauseCst = Node<{ keyword?: Tok; orExpr?: OrExprCst[] }>;
export type BecauseClauseCst = Node<{ keyword?: Tok; string?: Tok; ref?: Tok }>;

export type OrExprCst = Node<{ andExpr?: AndExprCst[]; Or?: Tok }>;
export type AndExprCst = Node<{ notExpr?: NotExprCst[]; And?: Tok }>;
export type NotExprCst = Node<{ Not?: Tok; primary?: PrimaryCst[] }>;
export type PrimaryCst = Node<{
  LParen?: Tok;
  orExpr?: OrExprCst[];
  RParen?: Tok;
  True?: Tok;
  False?: Tok;
  ranExpr?: RanExprCst[];
  comparison?: ComparisonCst[];
}>;
export type RanExprCst = Node<{ keyword?: Tok; toolList?: ToolListCst[]; selector?: SelectorCst[] }>;
export type ComparisonCst = Node<{ field?: Tok; op?: Tok; value?: ValueCst[]; Exists?: Tok }>;

export type ValueCst = Node<{
  string?: Tok;
  regex?: Tok;
  number?: Tok;
  duration?: Tok;
  True?: Tok;
  False?: Tok;
  Null?: Tok;
  ref?: Tok;
  list?: ListCst[];
  object?: ObjectCst[];
}>;
export type ListCst = Node<{ LBracket?: Tok; value?: ValueCst[]; RBracket?: Tok }>;
export type ObjectCst = Node<{ LCurly?: Tok; entry?: EntryCst[]; RCurly?: Tok }>;
export type EntryCst = Node<{ key?: Tok; Colon?: Tok; value?: ValueCst[] }>;

export type TestCaseCst = Node<{
  seam?: Tok;
  tool?: Tok;
  payloadString?: Tok;
  payloadObject?: ObjectCst[];
  With?: Tok;
  extra?: ObjectCst[];
  Arrow?: Tok;
  expect?: Tok;
  Because?: Tok;
  reasonRegex?: Tok;
  reasonString?: Tok;
}>;

// ---------------------------------------------------------------- extents

/** Offsets `[start, end)` of the text a node was read from. */
export interface Extent {
  start: number;
  end: number;
}

/** Where a node remembers its extent (null: no positioned token), once asked. */
interface WithExtent {
  extent?: Extent | null;
}

/**
 * The extent of a node: from its first to its last token read from the text (tokens inserted by
 * error recovery have no position and are ignored). Undefined when the node holds no such token.
 * Computed on demand and remembered, so asking for every node of a tree costs one walk of it.
 */
export function extentOf(node: CstNode): Extent | undefined {
  const known = (node as WithExtent).extent;
  if (known !== undefined) return known ?? undefined;
  let start = Infinity;
  let end = -Infinity;
  const children = node.children;
  for (const key in children) {
    for (const el of children[key] ?? []) {
      if ('image' in el) {
        if (el.isInsertedInRecovery || !Number.isFinite(el.startOffset)) continue;
        if (el.startOffset < start) start = el.startOffset;
        const e = el.startOffset + el.image.length;
        if (e > end) end = e;
      } else {
        const inner = extentOf(el);
        if (!inner) continue;
        if (inner.start < start) start = inner.start;
        if (inner.end > end) end = inner.end;
      }
    }
  }
  const result = start === Infinity ? null : { start, end };
  (node as WithExtent).extent = result;
  return result ?? undefined;
}
