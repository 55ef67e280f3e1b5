/**
 * Where an imported rule means something else than in Codex. Codex matches the argv a command
 * runs with, word for word; dshpolicy's `command` selector reads a command line as bash would and
 * looks through wrappers, into `bash -c` scripts, `eval` and `find -exec`, and at program paths.
 *
 * For a command whose program is a plain word both agree exactly. They differ on commands whose
 * program is a wrapper, a shell, `eval`, `find` or a path; how that plays out for every rule is
 * said once per file (`fileDifferences`). A rule whose own commands (those Codex matches with it)
 * can be such commands is checked here (`ruleDifferences`) by analysing its pattern followed by
 * probe words with dshpolicy's own analyser: whether the rule still applies to (or, for `allow`,
 * covers) its commands, and whether a stricter rule could apply to a command run inside them.
 */
import { analyzeCommand, compileCommandPattern, matchCommandPart, type CommandPart, type CommandPattern, type ShellWord } from '../../engine/index.js';
import { pathFileName, quoteArgv, quoteWord } from './rules-codex.js';

export type Effect = 'allow' | 'ask' | 'deny';

export interface DiffRule {
  id: string;
  effect: Effect;
  /** The pattern's token lists, one per combination of alternatives. */
  expansions: readonly (readonly string[])[];
  compiled: readonly CommandPattern[];
}

const LEVEL: Record<Effect, number> = { allow: 1, ask: 2, deny: 3 };
const CMD = '__codex_probe_cmd__';
const ARG = '__codex_probe_arg__';
const PAYLOADS: readonly string[][] = [[CMD], ['&&', CMD], ['-c', CMD], ['-exec', CMD, ';'], ['-S', CMD], ['bash', '-c', CMD], ['eval', CMD]];
const FILLERS: readonly string[][] = [[], [ARG], [ARG, ARG], [ARG, ARG, ARG]];
const TAILS: readonly string[][] = [[], ...FILLERS.flatMap((f) => PAYLOADS.map((p) => [...f, ...p]))];

/** A probe command as shown to a reader: the probe words become `CMD` and `ARG`. */
function shown(argv: readonly string[]): string {
  return quoteArgv(argv).split(CMD).join('CMD').split(ARG).join('ARG');
}

function sameWords(words: readonly ShellWord[], argv: readonly string[]): boolean {
  return words.length === argv.length && words.every((w, i) => !w.dynamic && w.value === argv[i]);
}

/** A command found inside a probe: its words, from which position on they may be anything, and whether more may follow. */
interface Inner {
  words: readonly string[];
  freeFrom: number;
}

function innerOf(words: readonly ShellWord[], argv: readonly string[], fixed: number): Inner {
  const values = words.map((w) => w.value);
  for (let a = argv.length - values.length; a >= 0; a--) {
    if (values.every((v, i) => v === argv[a + i])) return { words: values, freeFrom: Math.max(0, fixed - a) };
  }
  const marked = values.findIndex((v) => v.includes(CMD) || v.includes(ARG));
  return { words: values, freeFrom: marked < 0 ? Infinity : marked };
}

/** Whether a pattern (token list, any further words) can match some command of this shape, as `deny` reads program paths. */
function couldMatch(tokens: readonly string[], inner: Inner): boolean {
  for (let i = 0; i < tokens.length; i++) {
    if (i >= inner.freeFrom || i >= inner.words.length) return true;
    const w = inner.words[i]!;
    const t = tokens[i]!;
    if (w === t) continue;
    const slash = w.lastIndexOf('/');
    if (i === 0 && slash >= 0 && slash < w.length - 1 && w.slice(slash + 1) === t) continue;
    return false;
  }
  return true;
}

export interface Difference {
  /** One sentence, lowercase, user input in backticks. */
  text: string;
}

/** How dshpolicy reads one probe of a rule, when it reads it as something else than the argv. */
function probe(
  rule: DiffRule,
  argv: readonly string[],
  rules: readonly DiffRule[],
  fixed: number,
  out: Map<string, Difference>,
  inner: Map<string, { effect: Effect; example: string }>,
): void {
  const parts = analyzeCommand(quoteArgv(argv)).parts;
  const head = parts[0];
  const headIsArgv = head !== undefined && sameWords(head.words, argv);
  if (parts.length === 1 && headIsArgv && head.unknowable === null && head.views.length === 1) return;
  const example = shown(argv);
  const word = rule.effect;
  if (word !== 'allow') {
    const fires = parts.some((p) => rule.compiled.some((c) => matchCommandPart(c, p, 'any')));
    if (!fires && !out.has('missed')) {
      out.set('missed', { text: `this \`${word}\` does not apply to \`${example}\`, which dshpolicy reads as the commands of its script` });
    }
  } else {
    // a part that runs only the parts after it (`bash -c`'s own, an option's command) needs no allow of its own
    const covered = parts.length > 0 && parts.every((p) => p.transparent === true || rule.compiled.some((c) => matchCommandPart(c, p, 'allow')));
    if (!covered && !out.has('uncovered')) {
      const headCovered = head !== undefined && (head.transparent === true || rule.compiled.some((c) => matchCommandPart(c, head, 'allow')));
      const text =
        headIsArgv && head.unknowable === null && !headCovered
          ? `this \`allow\` does not allow \`${example}\` here: one of its options runs a command or writes a file, which a \`*\` does not cover`
          : uncoveredText(parts, headIsArgv, example);
      out.set('uncovered', { text });
    }
  }
  const inners: Inner[] = [];
  parts.forEach((p, k) => {
    p.views.forEach((v, j) => {
      if (!(k === 0 && j === 0 && headIsArgv)) inners.push(innerOf(v.words, argv, fixed));
    });
  });
  for (const other of rules) {
    if (other === rule || other.effect === 'allow' || inner.has(other.id)) continue;
    if (rule.effect !== 'allow' && LEVEL[other.effect] <= LEVEL[rule.effect]) continue;
    if (other.expansions.some((t) => inners.some((x) => couldMatch(t, x)))) inner.set(other.id, { effect: other.effect, example });
  }
}

function uncoveredText(parts: readonly CommandPart[], headIsArgv: boolean, example: string): string {
  if (parts.length === 0) return `this \`allow\` never allows \`${example}\` here: dshpolicy finds no command in it`;
  const unknowable = parts.find((p) => p.unknowable !== null);
  if (unknowable) return `this \`allow\` never allows \`${example}\` here: ${unknowable.unknowable}, so dshpolicy cannot know the command`;
  if (!headIsArgv) return `this \`allow\` allows \`${example}\` here only when the commands of its script are allowed too`;
  return `this \`allow\` allows \`${example}\` here only when the commands it runs are allowed too`;
}

/**
 * A path as a rule's program (`/usr/bin/git`, `bin/sotp`) next to rules for its basename (`git`):
 * Codex matches the path by the rules written for it and falls back to the basename's rules only
 * for an absolute path no such rule matches; dshpolicy reads the basename's `deny`/`ask` rules for
 * any path and its `allow` rules for paths in the system bin directories.
 */
function pathDifferences(rule: DiffRule, rules: readonly DiffRule[], out: Map<string, Difference>): void {
  const programs = [...new Set(rule.expansions.map((t) => t[0]!).filter((p) => p.includes('/')))];
  for (const program of programs) {
    const base = pathFileName(program);
    if (base === null) continue;
    const absolute = program.startsWith('/') || program === '~' || program.startsWith('~/');
    const part = analyzeCommand(quoteArgv([program])).parts[0];
    const trusted = part !== undefined && matchCommandPart(compileCommandPattern(`${quoteWord(base, true)} *`), part, 'allow');
    for (const other of rules) {
      if (other === rule || out.has(`path ${other.id}`)) continue;
      if (!other.expansions.some((t) => t[0] === base)) continue;
      const allow = other.effect === 'allow';
      if (allow && !absolute) continue;
      if (allow && !trusted && rule.expansions.some((t) => t.length === 1 && t[0] === program)) continue;
      const p = `\`${quoteWord(program, true)} ...\``;
      const text = !absolute
        ? `rule \`${other.id}\` (for \`${base}\`) also applies to ${p} here; codex matches \`${program}\` only by rules written for it`
        : `for ${p}, codex applies rule \`${other.id}\` (for \`${base}\`) only when no rule written for \`${program}\` matches, where dshpolicy ${
            allow && !trusted ? 'never applies it outside the system bin directories' : 'always applies both'
          }`;
      out.set(`path ${other.id}`, { text });
    }
  }
}

/** The differences of each rule, by rule id; rules without any are absent. */
export function ruleDifferences(rules: readonly DiffRule[]): Map<string, Difference[]> {
  const result = new Map<string, Difference[]>();
  for (const rule of rules) {
    const out = new Map<string, Difference>();
    const inner = new Map<string, { effect: Effect; example: string }>();
    for (const tokens of rule.expansions) {
      for (const tail of TAILS) probe(rule, [...tokens, ...tail], rules, tokens.length, out, inner);
    }
    if (inner.size > 0) {
      const which = [...inner].map(([id, x]) => `\`${id}\` (\`${x.effect}\`)`);
      const example = [...inner.values()][0]!.example;
      out.set('inner', {
        text: `${which.length === 1 ? 'the stricter rule' : 'the stricter rules'} ${which.join(', ')} also ${which.length === 1 ? 'applies' : 'apply'} here to the command run inside \`${example}\`, where codex matches only the argv as a whole`,
      });
    }
    pathDifferences(rule, rules, out);
    if (out.size > 0) result.set(rule.id, [...out.values()]);
  }
  return result;
}

/**
 * What holds for every rule of the file: the commands whose program is a wrapper, a shell, `eval`,
 * `find` or a path, and command lines of several commands. Examples use the file's own rules.
 */
export function fileDifferences(rules: readonly DiffRule[]): string[] {
  const plain = (r: DiffRule): string[] | undefined => r.expansions.find((t) => !t[0]!.includes('/'))?.slice(0, 3) as string[] | undefined;
  const deny = rules.filter((r) => r.effect !== 'allow').map(plain).find((t) => t !== undefined);
  const allow = rules.filter((r) => r.effect === 'allow').map(plain).find((t) => t !== undefined);
  const out: string[] = [];
  if (deny) {
    const c = quoteArgv(deny);
    out.push(
      `\`deny\` and \`ask\` rules also apply behind wrappers (\`sudo ${c}\`, \`env ${c}\`, \`timeout 5 ${c}\`), to the program run by a relative path (\`./${c}\`, where codex resolves only absolute paths to the program's rules), and inside \`bash -c\` scripts, \`eval\`, \`find -exec\` and \`$(...)\`; codex matches only the argv a command runs with`,
    );
  }
  if (allow) {
    const c = quoteArgv(allow);
    const rest = quoteArgv(allow.slice(1));
    const tail = rest === '' ? '' : ` ${rest}`;
    out.push(
      `\`allow\` rules also allow behind privilege-neutral wrappers (\`nice ${c}\`, \`timeout 5 ${c}\`), but a program run by path only from the system bin directories (\`/usr/bin/${quoteWord(allow[0]!)}${tail}\`), where codex allows it from any absolute path (\`/opt/tools/${quoteWord(allow[0]!)}${tail}\`) unless \`host_executable\` says otherwise`,
    );
  }
  if (rules.length > 0) {
    out.push(
      'both split a command line at `&&`, `||`, `;` and `|` and decide by its strictest command (`allow` only when every command is allowed); codex does so only for lines of plain words (and reads a line of one command with a here-document as that command) and matches any other line (with redirections, variables, substitutions, `&`) as the argv `bash -lc <line>`, which only rules for the shell (`bash`, `zsh`) match, where dshpolicy checks every command of every line',
    );
  }
  return out;
}
