/**
 * Claude Code `Bash(...)` (and `PowerShell(...)`) patterns as dshpolicy `command` patterns.
 *
 * Claude Code compares a pattern with each subcommand as text: the subcommand's words joined by
 * single spaces against the pattern's words joined the same way, where `*` matches any run of
 * characters, spaces included, and a final ` *` (or `:*`) also matches the bare prefix. Deny and
 * ask rules see the words after quote removal; allow rules (as Claude Code 2.1.328 was seen to
 * match them) see the arguments as written, quotes included. dshpolicy compares word lists after
 * quote removal: a final `*` word matches any further words, a `*` word elsewhere exactly one word,
 * and a `*` inside a word a run of characters within that word.
 *
 * So a pattern translates exactly when its only stars are the final ` *` or a star closing its last
 * word (`npm run test*` is `npm run test* *`). A star elsewhere (`git * main`, `rm *.txt`) can span
 * several words in Claude Code; it is written as one pattern per number of words it spans, up to a
 * bound, and the rule is reported. In deny and ask rules a `*` inside a word never matches a word
 * dshpolicy cannot know (`test$x`), whereas Claude Code compares the written text, and text that
 * looks like an expansion in a pattern (`$HOME`, backticks, braces) is compared as written there;
 * both are reported. A quoted word holding a blank in a deny or ask pattern is written both as one
 * word and as the words it holds.
 *
 * Differences that hold for every rule (quoting, wrappers, assignments, scripts, variables) are
 * not reported here; see permissions-notes.ts.
 */
import { analyzeCommand, checkCommandPattern, compileCommandPattern, exactProgramWord, matchCommandPart } from '../../engine/index.js';
import { claudeRuleMatches, colonStar, parseClaudeRule, plainPatternWords, shellPatternWords, type ClaudeRuleMode } from './permission-rule.js';

/** A wildcard element of a pattern (every other element is a code point). */
const STAR = -1;
/** The break between two words of a pattern (a space inside a quoted word stays the code point 0x20). */
const SEP = -2;
const SPACE = 0x20;

type Elems = number[];

/** What a Claude Code Bash rule becomes. */
export interface BashTranslation {
  /** dshpolicy command patterns; empty when the rule is not imported. */
  patterns: string[];
  /** How the imported rule differs, each a sentence (lowercase, user text in backticks). */
  differences: string[];
  /** Why the rule is not imported at all. */
  dropped?: string;
}

/** Programs Claude Code never allows by a rule, since they run other commands (its documentation). */
const EXEC_WRAPPERS: readonly string[] = ['setsid', 'flock', 'ionice'];

/** Wrappers Claude Code looks past before comparing an allow rule (bare `xargs` apart). */
export const CLAUDE_STRIPPED_WRAPPERS: readonly string[] = ['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin', 'noglob'];

/** How many words a middle `*` may stand for in the patterns written for it (per star count). */
function spanBound(stars: number): number {
  if (stars <= 2) return 3;
  if (stars <= 4) return 1;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Claude Code's reading of a pattern: permission-rule.ts's own word splitting

/**
 * The text Claude Code compares (without the word-boundary tail), with consecutive stars merged,
 * and whether a final ` *` lets it be followed by more words.
 */
function claudeShape(spec: string, quoteRemoval: boolean): { body: Elems; boundary: boolean } {
  const text = colonStar(spec);
  const words = (quoteRemoval ? shellPatternWords(text) : null) ?? plainPatternWords(text);
  const last = words[words.length - 1];
  const boundary = words.length > 1 && last !== undefined && last.length === 1 && last[0] === STAR;
  const head = boundary ? words.slice(0, -1) : words;
  const body: Elems = [];
  head.forEach((w, k) => {
    if (k > 0) body.push(SEP);
    for (const e of w) if (!(e === STAR && body[body.length - 1] === STAR)) body.push(e);
  });
  return { body, boundary };
}

// ---------------------------------------------------------------------------------------------
// dshpolicy pattern text

const PLAIN_CHAR = /^[A-Za-z0-9_./:@%+,-]$/u;

/** One word in dshpolicy pattern syntax: stars bare, everything else literal. */
function wordText(word: Elems): string {
  if (word.length === 0) return "''";
  let out = '';
  for (const e of word) {
    if (e === STAR) {
      out += '*';
      continue;
    }
    const ch = String.fromCodePoint(e);
    if (e > 0x7f || PLAIN_CHAR.test(ch)) out += ch;
    else if (e === 0x0a) out += "$'\\n'";
    else out += '\\' + ch;
  }
  return out;
}

function splitWords(body: Elems): Elems[] {
  const words: Elems[] = [[]];
  for (const e of body) {
    if (e === SEP) words.push([]);
    else words[words.length - 1]!.push(e);
  }
  return words;
}

/** Every way of letting each middle star span 0..bound spaces. */
function expansions(body: Elems, bound: number): Elems[] {
  let out: Elems[] = [[]];
  for (const e of body) {
    if (e !== STAR) {
      for (const x of out) x.push(e);
      continue;
    }
    const next: Elems[] = [];
    for (const x of out) {
      for (let k = 0; k <= bound; k++) {
        const y = [...x, STAR];
        for (let j = 0; j < k; j++) y.push(SEP, STAR);
        next.push(y);
      }
    }
    out = next;
  }
  return out;
}

function elemsText(body: Elems, fill: string): string {
  return body.map((e) => (e === STAR ? fill : e === SEP ? ' ' : String.fromCodePoint(e))).join('');
}

// ---------------------------------------------------------------------------------------------
// Checking an example command on both sides

export function claudeMatches(ruleText: string, command: string, mode: ClaudeRuleMode): boolean {
  const parsed = parseClaudeRule(ruleText);
  if (!parsed.rule) return false;
  const tool = ruleText.startsWith('PowerShell') ? 'PowerShell' : 'Bash';
  return claudeRuleMatches(parsed.rule, { tool, input: { command } }, { cwd: '/', mode });
}

export function dshMatches(patterns: readonly string[], command: string, mode: ClaudeRuleMode): boolean {
  const compiled = patterns.map(compileCommandPattern);
  const parts = analyzeCommand(command).parts;
  if (mode !== 'allow') return parts.some((part) => compiled.some((p) => matchCommandPart(p, part, 'any')));
  return parts.length > 0 && parts.every((part) => compiled.some((p) => matchCommandPart(p, part, 'allow')));
}

/** The first candidate the two sides disagree on. */
function firstDifference(ruleText: string, patterns: readonly string[], mode: ClaudeRuleMode, candidates: readonly string[]): string | undefined {
  return candidates.find((c) => c.trim() !== '' && claudeMatches(ruleText, c, mode) !== dshMatches(patterns, c, mode));
}

function sideOf(ruleText: string, command: string, mode: ClaudeRuleMode): string {
  return claudeMatches(ruleText, command, mode) ? 'claude code matches it, the imported rule does not' : 'the imported rule matches it, claude code does not';
}

// ---------------------------------------------------------------------------------------------
// Translation

const DYNAMIC_LOOKING = /[$`{}]|[<>]\(/u;

/** The dshpolicy patterns for a text, with how many middle stars it has and how far each is expanded. */
function patternsOf(full: Elems, boundary: boolean): { patterns: string[]; middleStars: number; bound: number } {
  // The star closing the text (if any) stands for any continuation: a final `*` word after the
  // word it closes. It is split off so that only the stars in the middle are expanded.
  let core = full;
  let closing: 'none' | 'word' | 'glob' | 'all' = 'none';
  let open = boundary;
  if (full[full.length - 1] === STAR) {
    open = true;
    const rest = full.slice(0, -1);
    if (rest.length === 0) closing = 'all';
    else if (rest[rest.length - 1] === SEP) {
      core = rest.slice(0, -1);
      closing = 'word';
    } else {
      core = rest;
      closing = 'glob';
    }
  }
  const middleStars = closing === 'all' ? 0 : core.filter((e) => e === STAR).length;
  const bound = spanBound(middleStars);
  const patterns: string[] = [];
  for (const v of closing === 'all' ? [] : expansions(core, bound)) {
    const words = splitWords(v);
    if (closing === 'word') words.push([STAR]);
    if (closing === 'glob') words[words.length - 1]!.push(STAR);
    const texts = words.map(wordText);
    // word by word, as claude code compares words
    if (texts.length > 0) texts[0] = exactProgramWord(texts[0]!);
    if (open) texts.push('*');
    const pattern = texts.join(' ');
    if (checkCommandPattern(pattern) === null && !patterns.includes(pattern)) patterns.push(pattern);
  }
  if (closing === 'all') patterns.push('*');
  return { patterns, middleStars, bound };
}

/**
 * Translates the specifier of a `Bash(...)` rule (`ruleText` is the whole rule, for checking
 * examples against Claude Code's reading).
 */
export function translateBash(spec: string, mode: ClaudeRuleMode, ruleText: string): BashTranslation {
  return translateShape(claudeShape(spec, true), mode, ruleText, true);
}

function translateShape(shape: { body: Elems; boundary: boolean }, mode: ClaudeRuleMode, ruleText: string, bash: boolean): BashTranslation {
  const { body: full, boundary } = shape;
  const differences: string[] = [];
  // Deny and ask rules compare text, so a quoted word holding a blank (`bash -c "npm test"`) also
  // stands for the words it holds: both readings are written. (Allow rules compare the command's
  // arguments as written, quotes included: the quoted reading is the closer one.)
  const resplit = full.map((e) => (e === SPACE ? SEP : e));
  const { patterns, middleStars, bound } = patternsOf(full, boundary);
  if (mode !== 'allow' && resplit.some((e, k) => e !== full[k])) {
    for (const p of patternsOf(resplit, boundary).patterns) if (!patterns.includes(p)) patterns.push(p);
  }
  const shown = elemsText(full, '*');
  if (patterns.length === 0) return { patterns, differences, dropped: `\`${shown}\` cannot be written as a command pattern` };
  if (!bash) return { patterns, differences };

  if (middleStars > 0) {
    const wide = Array.from({ length: bound + 2 }, (_, k) => String.fromCharCode(97 + k)).join(' ');
    const example = claudeExample(full, wide, boundary);
    differences.push(
      bound === 0
        ? `each \`*\` in the middle of \`${shown}\` stands for text within one word here, but for any text (several words too) in claude code: for \`${example}\`, ${sideOf(ruleText, example, mode)}`
        : `each \`*\` in the middle of \`${shown}\` stands for at most ${bound + 1} words here, but for any text in claude code: for \`${example}\`, ${sideOf(ruleText, example, mode)}`,
    );
  }
  // In allow rules neither matters: Claude Code asks about every command holding a variable or a
  // substitution, and compares `$HOME` in a rule with the command as written, quotes included.
  const globWord = patterns.some((p) => p.split(' ').some((w) => w.includes('*') && w !== '*'));
  if (globWord && mode !== 'allow') {
    const found = firstDifference(ruleText, patterns, mode, [claudeExample(full, '$x', boundary), claudeExample(full, '"$x"', boundary)]);
    if (found !== undefined) {
      differences.push(
        `a word holding a variable or a substitution (\`${found}\`) is compared as written in claude code, but here it may hold any text: ${sideOf(ruleText, found, mode)}`,
      );
    }
  }
  if (DYNAMIC_LOOKING.test(shown) && mode !== 'allow') {
    const example = elemsText(full, 'x') + (boundary ? ' x' : '');
    const found = firstDifference(ruleText, patterns, mode, [example]);
    differences.push(
      `claude code compares \`$\`, backticks, braces and \`<(\` as written text, so ${found !== undefined ? `for \`${found}\`, ${sideOf(ruleText, found, mode)}` : `\`${example}\` may differ`}; here such text in a command is a variable, a substitution or an expansion, which may hold any text`,
    );
  }
  if (mode === 'allow') {
    const first = splitWords(full)[0] ?? [];
    const name = first.includes(STAR) ? '' : elemsText(first, '');
    if (EXEC_WRAPPERS.includes(name)) {
      differences.push(`claude code asks about \`${name}\` whatever its allow rules say, since it runs another command; the imported rule allows it`);
    } else if (name === 'find') {
      differences.push(
        'claude code asks about `find` with `-exec`, `-execdir`, `-ok`, `-okdir` or `-delete` whatever its allow rules say; the imported rule allows `find -exec CMD` when CMD is allowed too',
      );
    }
  }
  return { patterns, differences };
}

/** A command for messages: stars filled in, the first middle one with `first`. */
function claudeExample(body: Elems, first: string, boundary: boolean): string {
  let used = false;
  const text = body
    .map((e) => {
      if (e === SEP) return ' ';
      if (e !== STAR) return String.fromCodePoint(e);
      if (used) return 'x';
      used = true;
      return first;
    })
    .join('');
  return (boundary ? `${text} x` : text).trim();
}

/** `PowerShell(...)`: the same shapes, but Claude Code compares case-insensitively and canonicalises aliases. */
export function translatePowerShell(spec: string, mode: ClaudeRuleMode, ruleText: string): BashTranslation {
  const translated = translateShape(claudeShape(spec, false), mode, ruleText, false);
  translated.differences.push(
    'claude code splits a powershell command at `|`, `;`, `&&` and `||` and compares each piece case-insensitively, with aliases such as `gci`, `ls` and `dir` for `Get-ChildItem`; here the command is read as a bash command and compared case-sensitively, without aliases',
  );
  return translated;
}

/** A command a Bash rule's pattern names: its stars filled with `x`, without the final ` *`. */
export function exampleCommand(spec: string): string {
  const { body } = claudeShape(spec, true);
  const head = body[body.length - 1] === STAR ? body.slice(0, -1) : body;
  return elemsText(head, 'x').trim();
}
