/**
 * Every layer Codex reads hooks from, for one project, in Codex's order (lowest precedence first):
 * the system folder (managed, when asked for), `$CODEX_HOME`, then each trusted project `.codex/`
 * folder from the project root down to the working directory. In each layer `hooks.json` comes
 * before the `[hooks]` table of `config.toml`. Nothing is deduplicated or overridden: Codex runs
 * every matching hook of every layer. Unmanaged hooks run only once trusted in `[hooks.state]`.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { diagnostic, type Diagnostic } from '../../engine/index.js';
import type { HooksConfig, Layer, MatcherGroup } from '../config.js';
import { loadCodexFile, type CodexFile } from './load.js';
import {
  codexHookHash,
  codexHookKey,
  handlerIndices,
  hashInputOf,
  trustStatus,
  type CodexHookState,
  type CodexHookStates,
} from './trust.js';

export interface CodexProjectOptions {
  /** The project folder; also the working directory unless `cwd` is given. */
  projectDir: string;
  /** The user's home folder. */
  home: string;
  /** `$CODEX_HOME`; `<home>/.codex` when absent. */
  codexHome?: string;
  /** Where Codex starts (default `projectDir`): project layers run from the project root (the nearest `.git`) down to here. */
  cwd?: string;
  /**
   * Whether the project is trusted (as `codex exec --trust` or a `[projects."<path>"] trust_level`
   * would make it). When absent, the user config's `[projects]` table decides.
   */
  trustProject?: boolean;
  /** Run unreviewed hooks too, like `--dangerously-bypass-hook-trust` (disabled ones still do not run). */
  bypassTrust?: boolean;
  /** A system folder (Codex uses `/etc/codex`) whose hooks are managed: always trusted. Not read when absent. */
  systemDir?: string;
}

export interface CodexTrustOptions {
  /** The absolute path Codex files this source's hook states under. */
  keySource: string;
  /** `[hooks.state]` of the user config. */
  states: CodexHookStates;
  /** Managed sources (system, MDM, requirements) are always trusted and enabled. */
  managed?: boolean;
  /** Like `--dangerously-bypass-hook-trust`. */
  bypass?: boolean;
  /** The user config file, for the fix-it text. */
  userConfig?: string;
}

export interface TrustOutcome {
  groups: MatcherGroup[];
  /** State keys that matched a hook. */
  usedKeys: Set<string>;
  /** Hooks that run only because trust is bypassed. */
  bypassed: number;
}

/** Keeps the hooks Codex would run given its trust state, with a diagnostic for each one it skips. */
export function applyCodexTrust(groups: MatcherGroup[], opts: CodexTrustOptions, diagnostics: Diagnostic[]): TrustOutcome {
  const usedKeys = new Set<string>();
  let bypassed = 0;
  const kept: MatcherGroup[] = [];
  for (const group of groups) {
    const hooks = group.hooks.filter((handler) => {
      const idx = handlerIndices(handler.source.pointer);
      if (!idx) return true;
      const key = codexHookKey(opts.keySource, group.event, idx.groupIndex, idx.handlerIndex);
      const state: CodexHookState | undefined = opts.states.get(key);
      if (state) usedKeys.add(key);
      const where = { span: handler.source.span, pointer: handler.source.pointer };
      if (!opts.managed && state?.enabled === false) {
        diagnostics.push(diagnostic('codex/disabled-hook', 'info', `this hook is disabled in \`[hooks.state]\` (\`${key}\`): codex skips it`, where));
        return false;
      }
      const hash = codexHookHash(hashInputOf(group, handler));
      const status = trustStatus(opts.managed === true, hash, state);
      if (status === 'managed' || status === 'trusted') return true;
      if (opts.bypass) {
        bypassed++;
        return true;
      }
      const entry = `\`"${key}" = { trusted_hash = "${hash}" }\` under \`[hooks.state]\`${opts.userConfig ? ` in \`${opts.userConfig}\`` : ''}`;
      if (status === 'modified') {
        diagnostics.push(
          diagnostic('codex/modified-hook', 'warning', 'codex skips this hook: it changed since it was trusted (its hash differs from `trusted_hash`)', {
            ...where,
            help: `review it again with \`/hooks\` in codex, or write ${entry}`,
          }),
        );
      } else {
        diagnostics.push(
          diagnostic('codex/untrusted-hook', 'warning', 'codex skips this hook: it has not been trusted', {
            ...where,
            help: `review it with \`/hooks\` in codex, run codex with \`--dangerously-bypass-hook-trust\`, or write ${entry}`,
          }),
        );
      }
      return false;
    });
    if (hooks.length > 0) kept.push({ ...group, hooks });
  }
  return { groups: kept, usedKeys, bypassed };
}

type ReadResult = { text: string } | { missing: true } | { error: string };

function readText(path: string): ReadResult {
  try {
    const st = statSync(path);
    if (!st.isFile()) return { missing: true };
    return { text: readFileSync(path, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

interface LayerSpec {
  layer: Layer;
  dir: string;
  managed: boolean;
  /** Project layers: whether Codex loads it. */
  trusted: boolean;
}

/** From the nearest folder holding `.git` (or `cwd` itself) down to `cwd`. */
function projectDirs(cwd: string): { root: string; dirs: string[] } {
  const chain: string[] = [];
  let root = cwd;
  for (let d = cwd; ; d = dirname(d)) {
    chain.push(d);
    if (exists(join(d, '.git'))) {
      root = d;
      break;
    }
    if (dirname(d) === d) {
      chain.length = 1;
      break;
    }
  }
  const dirs = root === cwd ? [cwd] : chain.reverse();
  return { root, dirs };
}

function projectTrustLevel(trust: Map<string, string>, candidates: string[]): string | undefined {
  for (const c of candidates) {
    for (const key of [c, real(c)]) {
      const level = trust.get(key) ?? trust.get(key.replace(/\/+$/, ''));
      if (level !== undefined) return level;
    }
  }
  return undefined;
}

export function loadCodexProject(opts: CodexProjectOptions): HooksConfig {
  const out: HooksConfig = { agent: 'codex', groups: [], disabled: false, files: [], diagnostics: [] };
  try {
    loadLayers(opts, out);
  } catch (err) {
    out.diagnostics.push(
      diagnostic('codex/internal', 'error', `loading codex hooks failed: ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}`, { pointer: '' }),
    );
  }
  return out;
}

function loadLayers(opts: CodexProjectOptions, out: HooksConfig): void {
  const codexHome = resolve(opts.codexHome ?? join(opts.home, '.codex'));
  const cwd = resolve(opts.cwd ?? opts.projectDir);
  const diags = out.diagnostics;
  const loaded = new Map<string, CodexFile>();

  const load = (path: string, layer: Layer): CodexFile | undefined => {
    const cached = loaded.get(path);
    if (cached) return cached;
    const r = readText(path);
    if ('missing' in r) return undefined;
    out.files.push(path);
    if ('error' in r) {
      diags.push(diagnostic('codex/unreadable', 'error', `cannot read \`${path}\`: ${r.error}`, { pointer: '', span: { file: path, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } } }));
      return undefined;
    }
    const file = loadCodexFile(r.text, path, { layer });
    loaded.set(path, file);
    return file;
  };

  // The user config is read first: it holds hook trust state and project trust.
  const userConfigPath = join(codexHome, 'config.toml');
  const systemConfigPath = opts.systemDir !== undefined ? join(resolve(opts.systemDir), 'config.toml') : undefined;

  const layers: LayerSpec[] = [];
  if (opts.systemDir !== undefined) layers.push({ layer: 'managed', dir: resolve(opts.systemDir), managed: true, trusted: true });
  layers.push({ layer: 'user', dir: codexHome, managed: false, trusted: true });

  const { root, dirs } = projectDirs(cwd);
  const projectTrust = new Map<string, string>();
  const collectTrust = () => {
    for (const p of [systemConfigPath, userConfigPath]) {
      const f = p !== undefined ? loaded.get(p) : undefined;
      for (const [k, v] of f?.projectTrust ?? []) projectTrust.set(k, v);
    }
  };

  // Load system and user first (the project decision depends on them).
  for (const spec of layers) {
    load(join(spec.dir, 'hooks.json'), spec.layer);
    load(join(spec.dir, 'config.toml'), spec.layer);
  }
  collectTrust();
  const realHome = real(codexHome);
  for (const dir of dirs) {
    const dotCodex = join(dir, '.codex');
    if (!isDir(dotCodex) || dotCodex === codexHome || real(dotCodex) === realHome) continue;
    const level = projectTrustLevel(projectTrust, [dir, root]);
    const trusted = opts.trustProject ?? level === 'trusted';
    layers.push({ layer: 'project', dir: dotCodex, managed: false, trusted });
  }

  const userFile = loaded.get(userConfigPath);
  const states: CodexHookStates = userFile?.states ?? new Map();
  const usedKeys = new Set<string>();
  let bypassed = 0;
  let firstBypassed: MatcherGroup | undefined;
  let disabled: boolean | undefined;

  for (const spec of layers) {
    const jsonPath = join(spec.dir, 'hooks.json');
    const tomlPath = join(spec.dir, 'config.toml');
    const json = load(jsonPath, spec.layer);
    const toml = load(tomlPath, spec.layer);
    if (json) diags.push(...json.config.diagnostics);
    // A config.toml without hooks is the common case here, not worth a note.
    if (toml) diags.push(...toml.config.diagnostics.filter((d) => d.code !== 'codex/no-hooks'));

    if (toml && toml.states.size > 0 && spec.layer !== 'user') {
      const first = [...toml.states.values()][0]!;
      diags.push(
        diagnostic('codex/state-ignored', 'warning', `codex reads \`[hooks.state]\` only from the user config (\`${userConfigPath}\`); this table has no effect`, {
          span: first.span,
          pointer: '/hooks/state',
        }),
      );
    }

    if (!spec.trusted) {
      for (const f of [json, toml]) {
        if (!f || f.groupCount === 0) continue;
        const path = f.config.files[0]!;
        diags.push(
          diagnostic('codex/untrusted-project', 'warning', `codex skips the hooks in \`${path}\`: the project is not trusted`, {
            span: { file: path, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
            pointer: '',
            help: `codex loads project-local hooks only from trusted projects: add \`[projects."${root}"]\ntrust_level = "trusted"\` to \`${userConfigPath}\`, or run \`codex exec --trust\``,
          }),
        );
      }
      continue;
    }

    if (json && toml && json.groupCount > 0 && toml.groupCount > 0) {
      diags.push(
        diagnostic('codex/both-representations', 'warning', `hooks are defined both in \`${jsonPath}\` and in \`${tomlPath}\`: codex loads both`, {
          span: { file: tomlPath, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
          pointer: '/hooks',
          help: 'prefer a single representation for this layer',
        }),
      );
    }

    for (const f of [json, toml]) {
      if (!f || f.config.groups.length === 0) continue;
      const outcome = applyCodexTrust(
        f.config.groups,
        { keySource: f.config.files[0]!, states, managed: spec.managed, bypass: opts.bypassTrust === true, userConfig: userConfigPath },
        diags,
      );
      for (const k of outcome.usedKeys) usedKeys.add(k);
      if (outcome.bypassed > 0) {
        bypassed += outcome.bypassed;
        firstBypassed ??= f.config.groups[0];
      }
      out.groups.push(...outcome.groups);
    }
    if (toml?.hooksFeature) disabled = !toml.hooksFeature.enabled;
  }

  out.disabled = disabled ?? false;

  if (bypassed > 0 && firstBypassed) {
    diags.push(
      diagnostic('codex/trust-bypassed', 'info', `hook trust is bypassed: ${bypassed} unreviewed ${bypassed === 1 ? 'hook runs' : 'hooks run'}`, {
        span: firstBypassed.source.span,
        pointer: firstBypassed.source.pointer,
      }),
    );
  }
  for (const [key, state] of states) {
    if (usedKeys.has(key)) continue;
    diags.push(
      diagnostic('codex/stale-state', 'info', `the hook state \`${key}\` matches no hook codex would load`, {
        span: state.span,
        pointer: state.pointer ?? '/hooks/state',
      }),
    );
  }
}
