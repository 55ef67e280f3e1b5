/**
 * The concrete syntax tree a parse gives: the node types generated from the grammar
 * (cst-types.ts, by gen-cst-types.ts), as error recovery may leave them, and the extent of a node.
 *
 * Every child list may be missing: error recovery can leave any part of a node out. Tokens that
 * recovery inserted have `isInsertedInRecovery` set, an empty image and no position.
 */
import type { CstNode, IToken } from 'chevrotain';
import type * as G from './cst-types.js';

/** A child of a node as a parse gives it: a token, or a node that may lack children too. */
type Child<T> = T extends IToken ? IToken : T extends CstNode ? Recovered<T> : never;

/** A generated node type with every child list optional, down the whole tree. */
export type Recovered<N extends CstNode> = Omit<N, 'children'> & {
  readonly children: { [K in keyof N['children']]?: Child<NonNullable<N['children'][K]>[number]>[] };
};

/** One type per grammar rule. A node's children are grouped by label (or rule or token name), each list in the order read. */
export type FileCst = Recovered<G.FileCstNode>;
export type ItemCst = Recovered<G.ItemCstNode>;
export type PolicyDeclCst = Recovered<G.PolicyDeclCstNode>;
export type IncludeDeclCst = Recovered<G.IncludeDeclCstNode>;
export type ImportDeclCst = Recovered<G.ImportDeclCstNode>;
export type LetDeclCst = Recovered<G.LetDeclCstNode>;
export type UnprotectDeclCst = Recovered<G.UnprotectDeclCstNode>;
export type OnBlockCst = Recovered<G.OnBlockCstNode>;
export type TestBlockCst = Recovered<G.TestBlockCstNode>;
export type StrayCst = Recovered<G.StrayCstNode>;
export type RuleCst = Recovered<G.RuleCstNode>;
export type ToolListCst = Recovered<G.ToolListCstNode>;
export type SelectorCst = Recovered<G.SelectorCstNode>;
export type HookClauseCst = Recovered<G.HookClauseCstNode>;
export type TimeoutClauseCst = Recovered<G.TimeoutClauseCstNode>;
export type DialectClauseCst = Recovered<G.DialectClauseCstNode>;
export type MatcherClauseCst = Recovered<G.MatcherClauseCstNode>;
export type WithClauseCst = Recovered<G.WithClauseCstNode>;
export type WhenClauseCst = Recovered<G.WhenClauseCstNode>;
export type BecauseClauseCst = Recovered<G.BecauseClauseCstNode>;
export type OrExprCst = Recovered<G.OrExprCstNode>;
export type AndExprCst = Recovered<G.AndExprCstNode>;
export type NotExprCst = Recovered<G.NotExprCstNode>;
export type PrimaryCst = Recovered<G.PrimaryCstNode>;
export type RanExprCst = Recovered<G.RanExprCstNode>;
export type ComparisonCst = Recovered<G.ComparisonCstNode>;
export type ValueCst = Recovered<G.ValueCstNode>;
export type ListCst = Recovered<G.ListCstNode>;
export type ObjectCst = Recovered<G.ObjectCstNode>;
export type EntryCst = Recovered<G.EntryCstNode>;
export type TestCaseCst = Recovered<G.TestCaseCstNode>;

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
