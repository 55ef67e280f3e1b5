/**
 * Every layer Claude Code reads hooks from for one project, merged the way it merges them: hooks
 * are never overridden, each layer's groups are added after the previous ones (managed, user,
 * project, local, `--settings`, then plugins). Scalar settings follow precedence instead
 * (managed > `--settings` > local > project > user), which decides `disableAllHooks`:
 *
 * - its effective value is the one from the highest layer that sets it (a project `false` beats a
 *   user `true`);
 * - effective `true` from managed settings turns off every hook;
 * - effective `true` from any other layer turns off user, project, local, `--settings` and plugin
 *   hooks, while managed hooks and plugins that managed `enabledPlugins` forces on keep running;
 * - managed `allowManagedHooksOnly` (an invalid value counts as `true`) keeps only managed hooks and
 *   those forced plugins;
 * - `allowedHttpHookUrls` lists from every layer merge, and HTTP handlers no pattern admits are dropped.
 *
 * Groups that do not run are left out of `groups`, with an info at the setting that turned them off.
 * Plugins are read from the roots the caller passes (`plugins`); finding where enabled plugins are
 * installed is not done here, and an enabled plugin without a root is reported as not loaded.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { diagnostic, type Diagnostic } from '../../engine/index.js';
import type { HooksConfig, Layer, MatcherGroup, SourceRef } from '../config.js';
import { append } from './json.js';
import { applyHttpAllowlist, loadFile, noteDuplicateHandlers, type ClaudeFileKind, type LoadedFile } from './load.js';

export interface ClaudePluginRef {
  /** The plugin's install directory (`CLAUDE_PLUGIN_ROOT`). */
  root: string;
  /** `plugin@marketplace`, to tell plugins that managed `enabledPlugins` forces on. */
  id?: string;
}

export interface ClaudeProjectOptions {
  /** The directory the session starts in. */
  projectDir: string;
  home: string;
  /** The managed settings file (`managed-settings.json`); its `managed-settings.d/*.json` are read after it. */
  managedFile?: string;
  /** `CLAUDE_CONFIG_DIR`; default `<home>/.claude`. */
  configDir?: string;
  /** The `--settings` value: a file path, or JSON text when it starts with `{`. */
  cliSettings?: string;
  /** Enabled plugins, by install directory. */
  plugins?: ClaudePluginRef[];
}

type ReadResult = { text: string } | { missing: true } | { error: string };

function readText(path: string): ReadResult {
  try {
    if (statSync(path).isDirectory()) return { error: 'it is a directory' };
    return { text: readFileSync(path, 'utf8') };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { error: code === 'EACCES' || code === 'EPERM' ? 'permission denied' : `error \`${code ?? String(e)}\`` };
  }
}

interface LayerFile {
  layer: Layer;
  loaded: LoadedFile;
  pluginId?: string;
}

/** Where `.claude/settings.local.json` is read: the git root (not the home directory), else the start directory. */
export function localSettingsRoot(projectDir: string, home: string): string {
  const start = resolve(projectDir);
  const homeAbs = resolve(home);
  let dir = start;
  for (let i = 0; i < 256; i++) {
    if (existsSync(join(dir, '.git'))) return dir === start || dir === homeAbs ? projectDir : dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return projectDir;
}

function where(s: SourceRef): { span?: SourceRef['span']; pointer: string } {
  return { span: s.span, pointer: s.pointer };
}

/** Loads every layer Claude Code reads for a project, merged as it merges them. Never throws. */
export function loadClaudeProject(opts: ClaudeProjectOptions): HooksConfig {
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const layers: LayerFile[] = [];
  try {
    const readHooksFile = (path: string): string | undefined => {
      const r = readText(path);
      return 'text' in r ? r.text : undefined;
    };
    const take = (l: LayerFile): void => {
      layers.push(l);
      append(files, l.loaded.config.files);
      append(diagnostics, l.loaded.config.diagnostics);
    };
    const add = (layer: Layer, file: string, kind: ClaudeFileKind, pluginRoot?: string, pluginId?: string): void => {
      const r = readText(file);
      if ('missing' in r) return;
      if ('error' in r) {
        diagnostics.push(diagnostic('claude/unreadable', 'warning', `cannot read \`${file}\`: ${r.error}`, { help: 'claude code skips a settings file it cannot read' }));
        return;
      }
      take({ layer, loaded: loadFile(r.text, file, { layer, kind, pluginRoot, readFile: kind === 'plugin-manifest' ? readHooksFile : undefined }), pluginId });
    };

    if (opts.managedFile) {
      add('managed', opts.managedFile, 'settings');
      const dropIns = join(dirname(opts.managedFile), 'managed-settings.d');
      let names: string[] = [];
      try {
        names = readdirSync(dropIns).filter((n) => n.endsWith('.json')).sort();
      } catch {
        names = [];
      }
      for (const n of names) add('managed', join(dropIns, n), 'settings');
    }
    const userFile = join(opts.configDir ?? join(opts.home, '.claude'), 'settings.json');
    add('user', userFile, 'settings');
    const projectFile = join(opts.projectDir, '.claude', 'settings.json');
    // In the home directory the project file is the user file: it is read once.
    if (resolve(projectFile) !== resolve(userFile)) add('project', projectFile, 'settings');
    const localFile = join(localSettingsRoot(opts.projectDir, opts.home), '.claude', 'settings.local.json');
    add('local', localFile, 'settings');
    if (opts.cliSettings !== undefined) {
      if (opts.cliSettings.trim().startsWith('{')) take({ layer: 'cli', loaded: loadFile(opts.cliSettings, '--settings', { layer: 'cli', kind: 'settings' }) });
      else add('cli', opts.cliSettings, 'settings');
    }
    for (const p of opts.plugins ?? []) {
      add('plugin', join(p.root, 'hooks', 'hooks.json'), 'plugin-hooks', p.root, p.id);
      add('plugin', join(p.root, '.claude-plugin', 'plugin.json'), 'plugin-manifest', p.root, p.id);
    }

    // Scalar settings: the highest layer that sets one decides.
    const rank: Record<string, number> = { managed: 0, cli: 1, local: 2, project: 3, user: 4 };
    const settingsLayers = layers
      .map((l, i) => ({ l, i }))
      .filter(({ l }) => rank[l.layer] !== undefined)
      .sort((a, b) => rank[a.l.layer]! - rank[b.l.layer]! || b.i - a.i) // later managed drop-ins override earlier ones
      .map(({ l }) => l);
    const disableFrom = settingsLayers.find((l) => l.loaded.settings.disableAllHooks);
    const disable = disableFrom?.loaded.settings.disableAllHooks;
    const managedOnly = settingsLayers.find((l) => l.layer === 'managed' && l.loaded.settings.allowManagedHooksOnly)?.loaded.settings.allowManagedHooksOnly;
    const effectivePlugins = new Map<string, { enabled: boolean; source: SourceRef; managed: boolean }>();
    for (const l of settingsLayers) {
      for (const p of l.loaded.settings.enabledPlugins) {
        if (!effectivePlugins.has(p.id)) effectivePlugins.set(p.id, { enabled: p.enabled, source: p.source, managed: l.layer === 'managed' });
      }
    }
    const forced = new Set<string>();
    for (const l of layers) if (l.layer === 'managed') for (const p of l.loaded.settings.enabledPlugins) if (p.enabled) forced.add(p.id);

    const offByDisable = disable?.value === true ? (disableFrom!.layer === 'managed' ? 'all' : 'non-managed') : undefined;
    const groups: MatcherGroup[] = [];
    let droppedByDisable = 0;
    let droppedByManagedOnly = 0;
    for (const l of layers) {
      const survives = l.layer === 'managed' || (l.layer === 'plugin' && l.pluginId !== undefined && forced.has(l.pluginId));
      const n = l.loaded.config.groups.length;
      if (offByDisable === 'all' || (offByDisable === 'non-managed' && !survives)) droppedByDisable += n;
      else if (managedOnly?.value === true && !survives) droppedByManagedOnly += n;
      else append(groups, l.loaded.config.groups);
    }
    // allowedHttpHookUrls merges across every settings layer and then applies to every source.
    const urlLists = settingsLayers.map((l) => l.loaded.settings.allowedHttpHookUrls).filter((u) => u !== undefined);
    applyHttpAllowlist(groups, urlLists.length > 0 ? urlLists.flatMap((u) => u.patterns) : undefined, diagnostics);
    if (disable?.value === true) {
      const what = offByDisable === 'all' ? 'every hook, managed ones included' : 'user, project, local and plugin hooks';
      diagnostics.push(diagnostic('claude/hooks-disabled', 'info', `\`disableAllHooks\` turns off ${what} (${droppedByDisable} groups)`, where(disable.source)));
    }
    if (managedOnly?.value === true && droppedByManagedOnly > 0) {
      diagnostics.push(diagnostic('claude/hooks-disabled', 'info', `\`allowManagedHooksOnly\` turns off ${droppedByManagedOnly} groups that are not from managed settings`, where(managedOnly.source)));
    }
    const given = new Set((opts.plugins ?? []).map((p) => p.id).filter((id): id is string => id !== undefined));
    for (const [id, p] of effectivePlugins) {
      if (p.enabled && !given.has(id)) {
        diagnostics.push(diagnostic('claude/plugin-not-loaded', 'info', `enabled plugin \`${id}\` is not loaded, so its hooks are not included`, {
          ...where(p.source),
          help: 'pass its install directory in `plugins` to include them',
        }));
      }
    }
    append(diagnostics, noteDuplicateHandlers(groups));
    return { agent: 'claude', groups, disabled: disable?.value === true, files, diagnostics };
  } catch (e) {
    diagnostics.push(diagnostic('claude/internal', 'error', `internal error while loading the project: ${e instanceof Error ? e.message : String(e)}`));
    return { agent: 'claude', groups: [], disabled: false, files, diagnostics };
  }
}
