/**
 * Stage 3, checks: everything that makes a policy wrong (errors) or suspicious (warnings), per
 * node kind, reported against the node. Runs on the files that parsed; names are resolved.
 */
import { hasErrors, PROTECTED_DESCRIPTIONS, PROTECTED_GROUPS, type Diagnostic, type ProtectedGroup } from '../engine/index.js';
import type { UnprotectDecl, ValueNode } from './ast.js';
import { error, makeContext, validateRegex, warning, type CheckContext } from './check-context.js';
import { deadAllowDiagnostics, findDeadAllows } from './check-dead.js';
import { checkLints } from './check-lints.js';
import { checkOnBlock } from './check-rules.js';
import { checkTestBlock } from './check-tests.js';
import { Lowered } from './memo.js';
import type { ScopedFile } from './scope.js';
import { codeAlternatives, didYouMean } from './suggest.js';

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
      case 'unprotect':
        checkUnprotect(ctx, item);
        break;
      default:
        break;
    }
  }
}

/** The words `unprotect` takes: the groups of self-protection, and `*` for all of them. */
const UNPROTECT_TARGETS: readonly string[] = [...PROTECTED_GROUPS, '*'];

/** Each group must be one of self-protection's; an opt-out is said, with what it leaves unprotected. */
function checkUnprotect(ctx: CheckContext, item: UnprotectDecl): void {
  for (const target of item.targets) {
    const name = target.name;
    if (!UNPROTECT_TARGETS.includes(name)) {
      error(ctx, 'check/unknown-protection', `\`${name}\` is not a group of self-protection`, target.span,
        didYouMean(name, UNPROTECT_TARGETS) ?? `the groups are ${codeAlternatives(UNPROTECT_TARGETS)} (\`*\`: all of them)`);
      continue;
    }
    const groups: readonly ProtectedGroup[] = name === '*' ? PROTECTED_GROUPS : [name as ProtectedGroup];
    const what = groups.map((g) => PROTECTED_DESCRIPTIONS[g]).join('; ');
    const off = name === '*' ? 'every group (`*`)' : `\`${name}\``;
    warning(ctx, 'check/unprotected', `self-protection is off for ${off}: the agent may write ${what}`, target.span,
      `an agent can then change its own guard; take \`${name}\` out of \`unprotect\` to protect it again`);
  }
}

function checkRegexesIn(ctx: CheckContext, value: ValueNode): void {
  if (value.kind === 'regex') validateRegex(ctx, value);
  else if (value.kind === 'list') for (const item of value.items) checkRegexesIn(ctx, item);
  else if (value.kind === 'object') for (const entry of value.entries) checkRegexesIn(ctx, entry.value);
}
