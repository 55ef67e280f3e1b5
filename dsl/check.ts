/**
 * Stage 3, checks: everything that makes a policy wrong (errors) or suspicious (warnings), per
 * node kind, reported against the node. Runs on the files that parsed; names are resolved.
 */
import { hasErrors, type Diagnostic } from '../engine/index.js';
import type { ValueNode } from './ast.js';
import { error, makeContext, validateRegex, type CheckContext } from './check-context.js';
import { deadAllowDiagnostics, findDeadAllows } from './check-dead.js';
import { checkLints } from './check-lints.js';
import { checkOnBlock } from './check-rules.js';
import { checkTestBlock } from './check-tests.js';
import { Lowered } from './memo.js';
import type { ScopedFile } from './scope.js';

export function checkProgram(files: readonly ScopedFile[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const file of files) checkFile(makeContext(file, out));
  const lowered = new Lowered();
  const dead = findDeadAllows(files, lowered);
  out.push(...deadAllowDiagnostics(dead));
  // The lints assume a policy that means what it says: they wait until it has no errors.
  if (!hasErrors(out)) out.push(...checkLints(files, new Set(dead.map((d) => d.allow.rule)), lowered));
  return out;
}

function checkFile(ctx: CheckContext): void {
  let policy = false;
  for (const item of ctx.file.ast.items) {
    switch (item.kind) {
      case 'policy':
        if (policy) {
          error(ctx, 'check/duplicate-policy', 'this file already declares its `policy` name', item.span, 'a file has at most one `policy` declaration');
        }
        policy = true;
        break;
      case 'let':
        // Regexes are checked where they are written, used or not.
        if (ctx.file.scope.lets.get(item.name.name) === item) checkRegexesIn(ctx, item.value);
        break;
      case 'on':
        checkOnBlock(ctx, item);
        break;
      case 'test':
        checkTestBlock(ctx, item);
        break;
      default:
        break;
    }
  }
}

function checkRegexesIn(ctx: CheckContext, value: ValueNode): void {
  if (value.kind === 'regex') validateRegex(ctx, value);
  else if (value.kind === 'list') for (const item of value.items) checkRegexesIn(ctx, item);
  else if (value.kind === 'object') for (const entry of value.entries) checkRegexesIn(ctx, entry.value);
}
