/**
 * The trust side of installing dshpolicy's hook into Codex: which trust entries our handlers need
 * (their keys and hashes, as Codex computes them), how the other hooks' entries follow when their
 * handlers move in hooks.json, and the plan for `$CODEX_HOME/config.toml` that `dshpolicy install`
 * (with `--trust`) and `uninstall` carry out, or the entries to add by hand. Pure text in, text
 * out: the files are read and written by bridges/install/.
 */
import { diagnostic, type Diagnostic } from '../../engine/index.js';
import type { TrustInput, TrustPlan, TrustReport, TrustSteps } from '../agent.js';
import { isDshpolicyHandler } from '../common/hooks-json.js';
import {
  codexHooksDisabled,
  codexHookStates,
  codexProjectTrusted,
  planCodexConfig,
  projectTrustText,
  trustEntryText,
  type CodexConfigEdit,
  type CodexTrustEntry,
} from './install-config.js';
import { loadCodexFile } from './load.js';
import { codexHookHash, codexHookKey, handlerIndices, hashInputOf } from './trust.js';

// ---------------------------------------------------------------------------------------------
// Trust keys and hashes

/** Every command handler of a hooks.json with its trust key (`keySource`: the file's path as Codex sees it) and hash. */
function handlerEntries(text: string | undefined, keySource: string): { entry: CodexTrustEntry; ours: boolean }[] {
  if (text === undefined || text.trim() === '') return [];
  const loaded = loadCodexFile(text, keySource, {});
  const out: { entry: CodexTrustEntry; ours: boolean }[] = [];
  for (const group of loaded.config.groups) {
    for (const handler of group.hooks) {
      const idx = handlerIndices(handler.source.pointer);
      if (!idx) continue;
      out.push({
        entry: {
          key: codexHookKey(keySource, group.event, idx.groupIndex, idx.handlerIndex),
          hash: codexHookHash(hashInputOf(group, handler)),
          event: group.event,
        },
        ours: isDshpolicyHandler(handler.raw),
      });
    }
  }
  return out;
}

/** Our handlers of a hooks.json text, with the trust entry Codex needs for each. */
export function codexTrustEntries(text: string | undefined, keySource: string): CodexTrustEntry[] {
  return handlerEntries(text, keySource)
    .filter((e) => e.ours)
    .map((e) => e.entry);
}

/**
 * Where the other handlers of the file moved, as trust keys (old -> new), when removing ours
 * shifted them. The edit only removes, replaces and appends our handlers, so the others keep their
 * order within each event and are matched by position in it.
 */
export function codexKeyMoves(beforeText: string | undefined, afterText: string | undefined, keySource: string): Map<string, string> {
  const others = (text: string | undefined) => {
    const byEvent = new Map<string, string[]>();
    for (const e of handlerEntries(text, keySource)) {
      if (e.ours) continue;
      const list = byEvent.get(e.entry.event) ?? [];
      list.push(e.entry.key);
      byEvent.set(e.entry.event, list);
    }
    return byEvent;
  };
  const a = others(beforeText);
  const b = others(afterText);
  const moves = new Map<string, string>();
  for (const [event, keys] of a) {
    const now = b.get(event) ?? [];
    keys.forEach((k, i) => {
      const n = now[i];
      if (n !== undefined && n !== k) moves.set(k, n);
    });
  }
  return moves;
}

// ---------------------------------------------------------------------------------------------
// The plan for config.toml

interface TrustOptions {
  /** Edit config.toml (else only report what it holds). */
  write: boolean;
  /** Also trust the project (a project install with `--trust`). */
  trustProject: boolean;
  /** Our handlers go: none of them needs an entry any more. */
  uninstall: boolean;
}

/** What config.toml should hold for the hooks file's edit, and what it holds now. */
function codexTrust(input: TrustInput, opts: TrustOptions): { report: TrustReport; plan?: CodexConfigEdit; diagnostics: Diagnostic[] } {
  const keySource = input.hooksFile;
  const was = codexTrustEntries(input.hooksBefore, keySource);
  const now = opts.uninstall ? [] : codexTrustEntries(input.hooksAfter, keySource);
  const moves = codexKeyMoves(input.hooksBefore, input.hooksAfter, keySource);
  const ourKeys = new Set([...was, ...now].map((e) => e.key));
  const ourHashes = new Set([...was, ...now].map((e) => e.hash));
  const isOurs = (key: string, hash: unknown) => key.startsWith(`${keySource}:`) && (ourKeys.has(key) || (typeof hash === 'string' && ourHashes.has(hash)));
  const states = codexHookStates(input.text);
  const diagnostics: Diagnostic[] = [];
  const report: TrustReport = { config: input.file, written: opts.write, changed: false, entries: [], removed: [], renamed: [] };
  let plan: CodexConfigEdit | undefined;
  if (opts.write) {
    plan = planCodexConfig(input.text, input.file, {
      add: now,
      isOurs,
      renames: moves,
      ...(opts.trustProject && input.dir ? { trustProject: input.dir, projectAliases: input.aliases } : {}),
    });
    if (plan.ok) {
      report.changed = plan.changed;
      report.removed = plan.removed;
      report.renamed = plan.renamed;
    }
  }
  const trustedNow = (e: CodexTrustEntry) => {
    if (plan?.ok) return true;
    const s = states.get(e.key);
    return s?.trustedHash === e.hash && s.enabled !== false;
  };
  report.entries = now.map((e) => ({ key: e.key, trusted_hash: e.hash, trusted: trustedNow(e) }));
  if (input.scope === 'project' && input.dir && !opts.uninstall) {
    const trusted = plan?.ok && plan.projectTrusted !== undefined ? true : codexProjectTrusted(input.text, [input.dir, ...input.aliases]);
    report.project = { dir: input.dir, trusted };
  }
  if (!opts.write) {
    // Other hooks that moved keep their trust only if their entries move with them.
    const stranded = [...moves].filter(([from]) => states.has(from));
    if (stranded.length > 0) {
      diagnostics.push(
        diagnostic('install/trust-moved', 'warning', `other hooks in \`${keySource}\` moved, so codex no longer finds their trust entries`, {
          help: `in \`${input.file}\`, rename ${stranded.map(([a, b]) => `\`${a}\` to \`${b}\``).join(', ')} (or rerun with \`--trust\`, which does it)`,
        }),
      );
    }
  }
  return { report, ...(plan ? { plan } : {}), diagnostics };
}

/**
 * The config.toml side of an install or an uninstall. An install reports which of our hooks (and
 * whether the project) Codex trusts, and with `--trust` writes the entries, refusing when the file
 * cannot be edited without touching anything else; it also warns when hooks are turned off there.
 * An uninstall removes our entries; when it cannot, the hook still goes and the entries stay,
 * with a warning (Codex ignores entries that match no hook).
 */
export function planCodexTrust(input: TrustInput): TrustPlan {
  if (input.mode === 'install') {
    const disabled = codexHooksDisabled(input.text, input.file);
    const first = disabled ? [disabled] : [];
    const built = codexTrust(input, { write: input.write, trustProject: input.write && input.scope === 'project', uninstall: false });
    if (built.plan && !built.plan.ok) return { ok: false, diagnostics: [...first, ...built.plan.diagnostics], report: built.report, changed: false };
    return { ok: true, diagnostics: [...first, ...built.diagnostics], report: built.report, ...(built.plan ? { text: built.plan.text } : {}), changed: built.plan?.changed ?? false };
  }
  const built = codexTrust(input, { write: input.text !== undefined, trustProject: false, uninstall: true });
  if (built.plan && !built.plan.ok) {
    built.report.written = false;
    return {
      ok: true,
      diagnostics: [
        ...built.plan.diagnostics.map((d) => ({ ...d, severity: 'warning' as const })),
        diagnostic('install/trust-left', 'warning', `the dshpolicy trust entries in \`${input.file}\` were left there (codex ignores entries that match no hook)`),
      ],
      report: built.report,
      changed: false,
    };
  }
  return { ok: true, diagnostics: [], report: built.report, ...(built.plan ? { text: built.plan.text } : {}), changed: built.plan?.changed ?? false };
}

/** The entries to add to config.toml by hand: the project's trust when it is missing, then each untrusted hook's. */
export function codexTrustSteps(report: TrustReport): TrustSteps {
  const blocks: string[] = [];
  if (report.project && !report.project.trusted) {
    blocks.push(`# the project: codex reads ${report.project.dir}/.codex/ only in a trusted project\n${projectTrustText(report.project.dir).trimEnd()}`);
  }
  for (const e of report.entries.filter((x) => !x.trusted)) blocks.push(trustEntryText({ key: e.key, hash: e.trusted_hash }).trimEnd());
  return {
    why: 'codex runs hooks only once they are trusted.',
    how: `Review them with /hooks in codex, rerun with --trust, or add to ${report.config}:`,
    blocks,
    footnote: '(the hash changes with the command, so install again after changing --policy; codex then needs the new entries)',
  };
}
