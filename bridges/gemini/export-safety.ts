/**
 * Why an exported Gemini CLI policy is never less restrictive than the dshpolicy policy it came
 * from. Three gaps are closed here:
 *
 * - A `deny` or `ask` (or a `run` hook, which may deny) that Gemini CLI cannot say, or says for
 *   fewer tools than it covers, leaves those tools to Gemini CLI, whose own defaults allow reads
 *   and, in `yolo`, everything. So those tools get a catch-all `ask_user` at priority 1 (above
 *   Gemini CLI's default tier, below every exported rule), a deny there is reported as widening
 *   (an error unless `lossy`: Gemini CLI asks where dshpolicy denies), and every exported allow of
 *   those tools is left out, since an allow cannot be carved in Gemini CLI's rules.
 * - Gemini CLI reads a shell command as its words: `commandPrefix = "find"` allows
 *   `find . -exec rm -rf {} +`, where dshpolicy sees the `rm` that a `deny Bash command "rm *"`
 *   denies, the `.env` a `deny Read path` protects, the write into `.gemini/settings.json` that
 *   self-protection denies. A shell allow is kept only where the engine's program tables
 *   (engine/prefix-traits.ts) show that no command it allows can reach what a deny or ask of the
 *   shell, of reads or of writes covers. A shell allow never gets `allowRedirection` and never
 *   holds outside `default` (and `yolo`, unless reads or writes are judged): dshpolicy's allow of a
 *   command does not cover the file it redirects into, which Gemini CLI lets through in `autoEdit`
 *   and `yolo` and asks about in `plan`, where its own policy would deny. Exported asks, which may
 *   be wider than their rule, leave out `plan` for the same reason.
 * - What dshpolicy reads through expansions (`$x`, `$(...)` inside arithmetic, backquotes,
 *   process substitution) has no prefix: such commands get `ask_user` at priority 150, above every
 *   exported allow, and every other shell command the exported rules do not decide gets the
 *   catch-all `ask_user`, so Gemini CLI's own safe-command heuristics never allow one. An MCP
 *   call with a `command` argument, which dshpolicy reads as a shell command too, is asked at 150. The
 *   catch-alls leave out `plan`, where Gemini CLI's own policy denies what no rule allows.
 *
 * What stays: a command that only dshpolicy's deeper reading denies (`sudo rm -rf /` against
 * `deny Bash command "rm *"`) is asked by Gemini CLI, not denied; `check` of the export says so.
 */
import { CLAUDE_CODE_TOOLS, CODEX_TOOLS, diagnostic, FILE_WRITE_TOOLS, prefixMayMatch, prefixTraits, type Diagnostic, type Rule, type Selector } from '../../engine/index.js';
import { escapeForGemini } from './read.js';
import { DSH_TO_GEMINI, GEMINI_SHELL_TOOL } from './tools.js';

/** One Gemini CLI `[[rule]]`'s fields, before its decision and priority. */
export interface Table {
  toolName?: string | string[];
  mcpName?: string;
  commandPrefix?: string[];
  commandRegex?: string;
  argsPattern?: string;
  modes?: string[];
  allowRedirection?: boolean;
  /** Said wider than the rule (a path selector as text). */
  wide?: boolean;
  /** The decision, where it is not the rule's. */
  decision?: 'deny';
  /** For a shell allow of exact commands: their words (undefined: not known as words). */
  exactWords?: string[][];
}

/** A rule and what it became. */
export interface Exported {
  rule: Rule;
  effect: 'deny' | 'ask' | 'allow';
  tables: Table[];
  /** Why the rule is left out as a whole, and the diagnostic that says so. */
  leftOut?: string;
  leftOutDiagnostic?: Diagnostic;
  /** The Gemini CLI tools its alternatives name (undefined: every tool). */
  clauseTools: string[] | undefined;
}

/** The file tools whose paths a `path` selector's text can be looked for in. */
export const FILE_PATH_TOOLS: readonly string[] = ['read_file', 'write_file', 'replace'];

const GEMINI_MODES = ['default', 'autoEdit', 'plan', 'yolo'];
const UNPLANNED = GEMINI_MODES.filter((m) => m !== 'plan');

// ---------------------------------------------------------------- path selectors as text

const LITERAL = /[A-Za-z0-9._-]/;

/**
 * A run of plain characters that every path the glob matches contains: the longest of the last
 * segment that has one. The last segment's, since a path is written relative to the working
 * directory, so only the file's own name is sure to be in the text (a glob that ends in `**` takes
 * its directory's name, which a path written from inside that directory lacks).
 */
function globLiteral(glob: string): string {
  const segments = glob.split('/').filter((x) => x !== '');
  for (let k = segments.length - 1; k >= 0; k--) {
    const segment = segments[k]!;
    let best = '';
    let run = '';
    const take = () => {
      if (run.length > best.length && /[^.]/.test(run)) best = run;
      run = '';
    };
    for (let i = 0; i < segment.length; i++) {
      let c = segment[i]!;
      if (c === '\\' && i + 1 < segment.length) c = segment[++i]!;
      else if ('*?[]{}'.includes(c)) {
        // a class or an alternative stands for other text: the run ends, and what is inside is skipped
        take();
        if (c === '[') while (i + 1 < segment.length && segment[i] !== ']') i++;
        if (c === '{') while (i + 1 < segment.length && segment[i] !== '}') i++;
        continue;
      }
      if (LITERAL.test(c)) run += c;
      else take();
    }
    take();
    if (best !== '') return best;
    // a segment of wildcards names any file: only `**` and `*` may stand before a named directory
    if (segment !== '**' && segment !== '*') return '';
  }
  return '';
}

/** Each letter as both cases (and the letters whose case folds onto it: the Kelvin sign, the long s). */
function foldedRegex(text: string, fold: boolean): string {
  let out = '';
  for (const c of text) {
    if (fold && /[A-Za-z]/.test(c)) {
      const extra = c.toLowerCase() === 'k' ? '\\u212A' : c.toLowerCase() === 's' ? '\\u017F' : '';
      out += `[${c.toLowerCase()}${c.toUpperCase()}${extra}]`;
    } else out += escapeForGemini(c);
  }
  return out;
}

/** Any text inside a JSON string: written without `(?:` and without a quantified group holding a quantifier, which gemini cli refuses as unsafe. */
export const JSON_STRING_TEXT = '([^"\\\\]|\\\\.)*';

/** The longest pattern gemini cli loads (policy/utils.ts `isSafeRegExp`), with room for its own prefix. */
const MAX_PATTERN = 2000;

/**
 * A `path` selector of a deny or ask as arguments patterns: some path field that contains the
 * text every matching path has, split so that each pattern stays within gemini cli's length cap.
 * Empty when a glob has no such text (every path: the tool as a whole); null for a negated glob.
 */
export function pathArgsPatterns(sel: Extract<Selector, { kind: 'path' }>): string[] | null {
  // a deny or ask folds case unless it says otherwise (ir.ts)
  const fold = sel.case !== 'exact';
  const pieces: string[] = [];
  for (const g of sel.globs) {
    if (g.startsWith('!')) return null;
    const literal = globLiteral(g);
    if (literal === '') return [];
    pieces.push(foldedRegex(literal, fold));
  }
  const head = `"(file_path|absolute_path|path|dir_path)":"${JSON_STRING_TEXT}(`;
  const out: string[] = [];
  let group: string[] = [];
  for (const piece of [...new Set(pieces)]) {
    if (group.length > 0 && head.length + [...group, piece].join('|').length + 1 > MAX_PATTERN) {
      out.push(`${head}${group.join('|')})`);
      group = [];
    }
    group.push(piece);
  }
  if (group.length > 0) out.push(`${head}${group.join('|')})`);
  return out;
}

// ---------------------------------------------------------------- tools as sets

/** Gemini CLI tools: built-in names, `mcp__<server>__<tool>` (either may be `*`). */
interface Tools {
  all: boolean;
  /** With `all`: the tools left out of it; else the tools. */
  names: string[];
}

const ALL: Tools = { all: true, names: [] };

function tableTools(t: Table): Tools {
  const names = t.toolName === undefined ? ['*'] : Array.isArray(t.toolName) ? t.toolName : [t.toolName];
  if (t.mcpName !== undefined) return { all: false, names: names.map((n) => `mcp__${t.mcpName}__${n}`) };
  if (names.includes('*')) return ALL;
  return { all: false, names };
}

/** Whether tool name `a` (possibly with `*` parts) and `b` can name one tool. */
function namesMeet(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.startsWith('mcp__') || !b.startsWith('mcp__')) return false;
  const [sa, ta] = a.slice(5).split('__');
  const [sb, tb] = b.slice(5).split('__');
  const part = (x: string | undefined, y: string | undefined) => x === '*' || y === '*' || x === y;
  return part(sa, sb) && part(ta, tb);
}

/** Whether `cover` names every tool `name` names. */
function covers(cover: string, name: string): boolean {
  if (cover === name) return true;
  if (!cover.startsWith('mcp__') || !name.startsWith('mcp__')) return false;
  const [sc, tc] = cover.slice(5).split('__');
  const [sn, tn] = name.slice(5).split('__');
  return (sc === '*' || sc === sn) && (tc === '*' || tc === tn);
}

function meets(a: Tools, name: string): boolean {
  return a.all ? !a.names.some((n) => covers(n, name)) : a.names.some((n) => namesMeet(n, name));
}

function isEmpty(t: Tools): boolean {
  return !t.all && t.names.length === 0;
}

/** `scope` without `covered` (what a table covers is a list of names, or every tool). */
function minus(scope: Tools, covered: Tools[]): Tools {
  if (covered.some((c) => c.all)) return { all: false, names: [] };
  const coveredNames = covered.flatMap((c) => c.names);
  if (scope.all) return { all: true, names: [...new Set([...scope.names, ...coveredNames])] };
  return { all: false, names: scope.names.filter((n) => !coveredNames.some((c) => covers(c, n))) };
}

/** A rule's tools as Gemini CLI names them; every tool when it has none or a pattern. */
function ruleTools(rule: Rule): Tools {
  if (!rule.tools || rule.tools.some((t) => t === '*' || (t.includes('*') && !t.startsWith('mcp__')))) return ALL;
  const names: string[] = [];
  for (const t of rule.tools) {
    const mapped = DSH_TO_GEMINI[t];
    if (mapped) names.push(mapped);
    // a tool of another agent only, which gemini cli does not have
    else if (!t.startsWith('mcp__') && (CLAUDE_CODE_TOOLS.includes(t) || CODEX_TOOLS.includes(t))) continue;
    else names.push(t);
  }
  return { all: false, names };
}

function describe(t: Tools): string {
  if (t.all) return t.names.length === 0 ? 'every tool' : `every tool but ${t.names.map((n) => `\`${n}\``).join(', ')}`;
  return t.names.map((n) => `\`${n}\``).join(', ');
}

// ---------------------------------------------------------------- what restrictions need of the shell

/** What a deny or ask asks of shell allows. */
interface ShellConcern {
  item: Exported;
  /** Command patterns as words, whose commands gemini cli reads less deeply; null: every command. */
  programs: string[][] | null | undefined;
  /** dshpolicy judges the files a command reads by this rule. */
  reads: boolean;
  /** ... and the files it writes. */
  writes: boolean;
}

const READ_TOOLS = new Set(['Read', 'read_file']);
const WRITE_TOOLS = new Set([...FILE_WRITE_TOOLS]);

function judges(rule: Rule, tools: ReadonlySet<string>): boolean {
  // an MCP tool pattern names no file tool
  return !rule.tools || rule.tools.some((t) => (t.includes('*') && !t.startsWith('mcp__')) || tools.has(t));
}

/** A command pattern as gemini cli would read its words: a program word quoted so that the pattern compares words (`'git' push *`) is gemini cli's own reading. */
export function patternAsWritten(p: string): string {
  return p.replace(/^'([A-Za-z0-9][A-Za-z0-9._+-]*)'(?= |$)/, '$1');
}

function commandPatterns(rule: Rule): string[][] | undefined {
  const sels = (rule.selectors ?? []).filter((s) => s.kind === 'command');
  if (sels.length === 0) return undefined;
  return sels.flatMap((s) => s.patterns.map((p) => patternAsWritten(p).split(' ').filter((w) => w !== '')));
}

// ---------------------------------------------------------------- carving

export interface Carved {
  rules: { item: Exported; tables: Table[] }[];
  /** Catch-all tables, each with its priority and why it is there. */
  extra: { table: Table; priority: number; why: string }[];
  diagnostics: Diagnostic[];
  /** The denies reported as widening. */
  widened: Set<Exported>;
}

/** A shell command with an expansion whose result dshpolicy reads and gemini cli's prefixes cannot. */
export const EXPANSION_REGEX = `${JSON_STRING_TEXT}(\\$|\x60|[<>=]\\()`;

export function carve(items: readonly Exported[], lossy: boolean): Carved {
  const diagnostics: Diagnostic[] = [];
  const restrictions = items.filter((i) => i.effect !== 'allow');
  const uncoveredBy = new Map<Exported, Tools>();
  const concerns: ShellConcern[] = [];
  const widened = new Set<Exported>();
  let deepShell = false;
  for (const r of restrictions) {
    const scope = r.clauseTools !== undefined ? { all: false, names: r.clauseTools } : r.leftOut !== undefined ? ruleTools(r.rule) : ALL;
    const uncovered = minus(scope, r.tables.map(tableTools));
    if (!isEmpty(uncovered)) uncoveredBy.set(r, uncovered);
    const shellInScope = meets(scope, GEMINI_SHELL_TOOL);
    const patterns = commandPatterns(r.rule);
    // a rule gemini cli says of the shell tool as a whole (same modes) denies the command itself, whatever it reads
    const shellWhole = r.tables.some((t) => meets(tableTools(t), GEMINI_SHELL_TOOL) && t.argsPattern === undefined && t.commandPrefix === undefined && t.commandRegex === undefined);
    const concern: ShellConcern = {
      item: r,
      programs: meets(uncovered, GEMINI_SHELL_TOOL) ? null : shellInScope && patterns !== undefined ? patterns : undefined,
      reads: !shellWhole && judges(r.rule, READ_TOOLS),
      writes: !shellWhole && judges(r.rule, WRITE_TOOLS),
    };
    if (concern.programs !== undefined || concern.reads || concern.writes) concerns.push(concern);
    if (concern.programs) deepShell = true;
    if (!isEmpty(uncovered) && r.effect === 'deny') {
      widened.add(r);
      const why = r.leftOut !== undefined ? `it is left out (${r.leftOut})` : `gemini cli cannot say it for ${describe(uncovered)}`;
      diagnostics.push(
        diagnostic(
          'export/widens',
          lossy ? 'warning' : 'error',
          `deny rule \`${r.rule.id}\` does not hold in gemini cli: ${why}, so gemini cli asks there where dshpolicy denies`,
          { span: r.rule.span, help: lossy ? 'exported with `--lossy`: those calls get the catch-all `ask_user`' : 'say the rule with what gemini cli has, or export with `--lossy` to accept that gemini cli asks instead' },
        ),
      );
    }
  }
  const anyUncovered = [...uncoveredBy.values()];
  // a redirection reads or writes a file: where gemini cli lets one through, only a shell allow that cannot redirect is safe
  const filesJudged = concerns.some((c) => c.reads || c.writes);

  /** Why a shell allow of commands that start with `words` could reach a deny or ask; undefined when it cannot. */
  const shellUnsafe = (words: string[] | undefined): string | undefined => {
    const traits = words === undefined ? { runs: true, writes: true, reads: true } : prefixTraits(words);
    for (const c of concerns) {
      const id = `\`${c.item.rule.id}\``;
      if (c.programs === null) return `${id} covers shell commands gemini cli cannot tell apart`;
      if (c.programs !== undefined) {
        if (words === undefined) return `${id} denies commands among them`;
        if (traits.runs) return `\`${words.join(' ')}\` can run other commands, which gemini cli would not hold against ${id}`;
        const hit = c.programs.find((p) => prefixMayMatch(words, p));
        if (hit) return `${id} denies \`${hit.join(' ')}\`, which gemini cli reads less deeply`;
      }
      if (c.reads && traits.reads) return `${words === undefined ? 'they' : `\`${words[0]}\``} may read files that ${id} judges`;
      if (c.writes && traits.writes) return `${words === undefined ? 'they' : `\`${words[0]}\``} may write files that ${id} judges`;
    }
    return undefined;
  };

  const out: Carved['rules'] = [];
  for (const item of items) {
    if (item.effect === 'ask') {
      // an ask said wider than its rule must not soften `plan`, where gemini cli denies what no
      // rule allows: there it denies
      const tables = item.tables.flatMap((t): Table[] => {
        if (!t.wide) return [t];
        const modes = t.modes ?? GEMINI_MODES;
        const asked = modes.filter((m) => m !== 'plan');
        return [...(asked.length > 0 ? [{ ...t, modes: asked }] : []), ...(modes.includes('plan') ? [{ ...t, modes: ['plan'], decision: 'deny' as const }] : [])];
      });
      out.push({ item, tables });
      continue;
    }
    if (item.effect !== 'allow') {
      out.push({ item, tables: item.tables });
      continue;
    }
    const kept: Table[] = [];
    const dropped: string[] = [];
    for (const t0 of item.tables) {
      const t: Table = { ...t0 };
      const tools = tableTools(t);
      // an allow of every tool cannot be carved
      if (tools.all) {
        const why = anyUncovered.length > 0 ? 'a deny or ask gemini cli cannot say covers some tool' : concerns.length > 0 ? 'it allows shell commands a deny or ask covers' : undefined;
        if (why === undefined) kept.push(t);
        else dropped.push(`every tool (${why})`);
        continue;
      }
      let names = tools.names.filter((n) => {
        const by = restrictions.find((r) => uncoveredBy.has(r) && meets(uncoveredBy.get(r)!, n));
        if (by) dropped.push(`\`${n}\` (\`${by.rule.id}\` is not said there)`);
        return by === undefined;
      });
      if (names.includes(GEMINI_SHELL_TOOL) && concerns.length > 0) {
        const commandTest = t.commandPrefix !== undefined || t.exactWords !== undefined;
        if (!commandTest || names.length > 1) {
          const why = shellUnsafe(undefined);
          if (why !== undefined) {
            dropped.push(`\`${GEMINI_SHELL_TOOL}\` (${why})`);
            names = names.filter((n) => n !== GEMINI_SHELL_TOOL);
          }
        } else if (t.commandPrefix !== undefined) {
          t.commandPrefix = t.commandPrefix.filter((p) => {
            const why = shellUnsafe(p.split(' '));
            if (why !== undefined) dropped.push(`\`${p} *\` (${why})`);
            return why === undefined;
          });
          if (t.commandPrefix.length === 0) names = [];
        } else {
          const why = t.exactWords!.map((w) => shellUnsafe(w)).find((w) => w !== undefined);
          if (why !== undefined) {
            dropped.push(`\`${t.exactWords!.map((w) => w.join(' ')).join('`, `')}\` (${why})`);
            names = [];
          }
        }
      }
      if (names.includes(GEMINI_SHELL_TOOL)) {
          // dshpolicy's allow of a command does not cover what it redirects into; gemini cli asks
          // before a redirection only outside `autoEdit`
          delete t.allowRedirection;
          // in `plan` gemini cli asks before the redirection its own policy would deny
          const modes = (t.modes ?? GEMINI_MODES).filter((m) => m === 'default' || (m === 'yolo' && !filesJudged));
          if (modes.length === 0) {
            dropped.push(`\`${GEMINI_SHELL_TOOL}\` in \`autoEdit\`, \`plan\`${filesJudged ? ' and `yolo`' : ''} (gemini cli lets redirections through, or asks where it would deny)`);
            names = names.filter((n) => n !== GEMINI_SHELL_TOOL);
          } else if (modes.length < (t.modes ?? GEMINI_MODES).length) t.modes = modes;
      }
      if (names.length === 0) continue;
      if (t.mcpName !== undefined) {
        const prefix = `mcp__${t.mcpName}__`;
        const short = names.map((n) => n.slice(prefix.length));
        t.toolName = short.length === 1 ? short[0]! : short;
      } else t.toolName = names.length === 1 ? names[0]! : names;
      delete t.exactWords;
      kept.push(t);
    }
    if (dropped.length > 0) {
      diagnostics.push(
        diagnostic('export/allow-narrowed', 'warning', `allow rule \`${item.rule.id}\` is narrowed for gemini cli, which would otherwise allow what dshpolicy does not: it leaves out ${dropped.join('; ')}`, {
          span: item.rule.span,
          help: 'gemini cli asks for what is left out',
        }),
      );
    }
    out.push({ item, tables: kept.map(({ exactWords: _, ...t }) => t) });
  }

  const extra: Carved['extra'] = [];
  // not in `plan`, where gemini cli's own policy denies what no rule allows
  const catchAll = (table: Table, why: string) => extra.push({ table: { ...table, modes: UNPLANNED }, priority: 1, why });
  const allUncovered = anyUncovered.some((u) => u.all);
  if (allUncovered) catchAll({ toolName: '*' }, 'what a deny or ask gemini cli cannot say covers is asked');
  else {
    const names = [...new Set(anyUncovered.flatMap((u) => u.names))];
    const plain = names.filter((n) => !n.startsWith('mcp__') && n !== GEMINI_SHELL_TOOL);
    if (plain.length > 0) catchAll({ toolName: plain.length === 1 ? plain[0]! : plain }, 'what a deny or ask gemini cli cannot say covers is asked');
    for (const n of names.filter((x) => x.startsWith('mcp__'))) {
      const [server, tool] = n.slice(5).split('__');
      catchAll({ mcpName: server!, toolName: tool ?? '*' }, 'what a deny or ask gemini cli cannot say covers is asked');
    }
  }
  if (concerns.length > 0 || (!allUncovered && anyUncovered.some((u) => meets(u, GEMINI_SHELL_TOOL)))) {
    // dshpolicy reads the `command` of any tool as a shell command; of gemini cli's tools, MCP tools may have one
    const why = 'an MCP call with a `command` is asked: dshpolicy reads it as a shell command, which gemini cli does not';
    extra.push({ table: { mcpName: '*', toolName: '*', argsPattern: '"command":"', modes: UNPLANNED }, priority: 150, why });
    extra.push({ table: { mcpName: '*', toolName: '*', argsPattern: '"command":"', modes: ['plan'], decision: 'deny' }, priority: 150, why: `${why} (denied in \`plan\`)` });
    extra.push({ table: { toolName: GEMINI_SHELL_TOOL, commandRegex: EXPANSION_REGEX, modes: UNPLANNED }, priority: 150, why: 'a command with an expansion is asked: dshpolicy reads what it runs, a prefix cannot' });
    catchAll({ toolName: GEMINI_SHELL_TOOL, commandRegex: '[\\s\\S]*' }, "a shell command no rule here decides is asked, never allowed by gemini cli's own heuristics");
  }
  if (deepShell) {
    diagnostics.push(
      diagnostic('export/shell-depth', 'info', 'gemini cli reads shell commands less deeply than dshpolicy: a command only dshpolicy sees as denied (through `sudo`, `bash -c`, a variable) is asked in gemini cli, not denied', {
        help: 'shell allows that could reach such commands are left out',
      }),
    );
  }
  return { rules: out, extra, diagnostics, widened };
}
