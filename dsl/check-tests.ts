/**
 * Checks of `test` blocks: the event of each case (built as the lowering builds it), the decision
 * word against the case's seam, and the `because` regex.
 */
import { SEAM_DECISIONS } from '../engine/index.js';
import type { TestBlock, TestCaseNode } from './ast.js';
import { error, validateRegex, type CheckContext } from './check-context.js';
import { checkTool } from './check-selectors.js';
import { buildTestEvent, isDecisionOf } from './lower-tests.js';
import { codeAlternatives, didYouMean } from './suggest.js';

export function checkTestBlock(ctx: CheckContext, block: TestBlock): void {
  for (const c of block.cases) checkCase(ctx, c);
}

function checkCase(ctx: CheckContext, c: TestCaseNode): void {
  if (c.tool && !c.tool.name.includes('*')) checkTool(ctx, c.tool);
  const built = buildTestEvent(c, ctx.file.scope, (code, message, span, help) => error(ctx, code, message, span, help));
  if (c.because?.kind === 'regex') validateRegex(ctx, c.because);
  if (!built) return;
  const word = c.expect.name;
  if (!isDecisionOf(built.seam, word)) {
    const decisions = SEAM_DECISIONS[built.seam];
    const guess = didYouMean(word, decisions);
    error(
      ctx,
      'check/bad-test-decision',
      `\`${word}\` is not a decision of the \`${built.seam}\` seam`,
      c.expect.span,
      `${guess ? `${guess} ` : ''}the \`${built.seam}\` seam decides ${codeAlternatives(decisions)}`,
    );
  }
}
