/**
 * Codex rules files (`~/.codex/rules/*.rules`, `.codex/rules/*.rules`) imported as `pre-tool`
 * rules on `Bash`, read as Codex's `execpolicy` reads them.
 *
 * - `prefix_rule(pattern, decision, match, not_match, justification)` becomes one rule with a
 *   `command` selector: a pattern `["git", ["push", "pull"]]` gives the command patterns
 *   `git push *` and `git pull *`, each word quoted so that it matches exactly that word.
 *   `allow`, `prompt` and `forbidden` become `allow`, `ask` and `deny`; the justification is the
 *   reason of `ask` and `deny`. Codex's strictest-match-wins is dshpolicy's merge law.
 * - `match` and `not_match` examples are checked as Codex checks them when it loads the file
 *   (errors), and each becomes a test case expecting what Codex decides for that argv with the
 *   whole file.
 * - `host_executable` and `network_rule` are checked; neither becomes a rule (warnings say what
 *   that changes).
 * - Where dshpolicy reads a command otherwise than Codex, a warning says so: once per file for
 *   what holds for every rule, and at each rule whose own commands are read otherwise
 *   (rules-diff.ts).
 *
 * Ids are `file:line:col` of the `prefix_rule` call. Never throws.
 */
import {
  checkCommandPattern,
  compileCommandPattern,
  analyzeCommand,
  diagnostic,
  exactProgramWord,
  type Diagnostic,
  LineIndex,
  type Rule,
  type Span,
  type TestCase,
} from '../../engine/index.js';
import type { ImportedPolicy, PermissionImportOptions } from '../permissions.js';
import { CodexPolicy, absolutePath, decisionWord, pathFileName, quoteArgv, quoteWord, shlexSplit, type CodexDecision, type CodexPrefixRule } from './rules-codex.js';
import { fileDifferences, ruleDifferences, type DiffRule, type Effect } from './rules-diff.js';
import { StarlarkError, addValues, evalExpr, parseStarlark, typeName, type EvaluatedArg, type Expr, type Loc, type Val } from './rules-starlark.js';

/** Most command patterns one `prefix_rule` may expand to (the product of its alternatives). */
export const MAX_PATTERNS = 1000;

interface Example {
  kind: 'match' | 'not_match';
  argv: string[];
  /** The example as written, when it was a string. */
  text?: string;
  loc: Loc;
}

interface PrefixCall {
  id: string;
  loc: Loc;
  pattern: { alts: string[]; loc: Loc }[];
  decision: CodexDecision;
  justification?: string;
  examples: Example[];
  codex: CodexPrefixRule[];
}

const EFFECT: Record<CodexDecision, Effect> = { allow: 'allow', prompt: 'ask', forbidden: 'deny' };

const PARAMS: Record<string, { names: string[]; required: number }> = {
  prefix_rule: { names: ['pattern', 'decision', 'match', 'not_match', 'justification'], required: 1 },
  host_executable: { names: ['name', 'paths'], required: 2 },
  network_rule: { names: ['host', 'protocol', 'decision', 'justification'], required: 3 },
};

class Silent extends Error {}

function invalid(message: string, loc: Loc, help?: string): StarlarkError {
  return new StarlarkError('import/invalid-rule', message, loc, help);
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

/** Binds a call's arguments to the builtin's parameters as Starlark does; `None` is an absent optional. */
function bind(fn: string, args: EvaluatedArg[], at: Expr): Map<string, Val> {
  const spec = PARAMS[fn]!;
  const out = new Map<string, Val>();
  args.forEach((a, i) => {
    if (a.name === undefined) {
      const name = spec.names[i];
      if (name === undefined) throw invalid(`\`${fn}\` takes at most ${spec.names.length} positional arguments`, a.loc);
      out.set(name, a.value);
      return;
    }
    const name = a.name.v;
    const loc = { start: a.name.s, end: a.name.e };
    if (!spec.names.includes(name)) {
      const near = spec.names.find((n) => editDistance(n, name) <= 2);
      throw invalid(`\`${name}\` is not an argument of \`${fn}\``, loc, near ? `did you mean \`${near}\`?` : `\`${fn}\` takes ${spec.names.map((n) => `\`${n}\``).join(', ')}`);
    }
    if (out.has(name)) throw invalid(`the argument \`${name}\` is given twice`, loc);
    out.set(name, a.value);
  });
  for (const [name, v] of [...out]) if (v.k === 'none' && spec.names.indexOf(name) >= spec.required) out.delete(name);
  const missing = spec.names.slice(0, spec.required).find((n) => !out.has(n));
  if (missing) throw invalid(`\`${fn}\` needs the argument \`${missing}\``, { start: at.s, end: at.e });
  return out;
}

function str(v: Val | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (v.k !== 'str') throw invalid(`\`${name}\` must be a string, not a \`${typeName(v)}\``, v.loc);
  return v.v;
}

function list(v: Val | undefined, name: string): Val[] | undefined {
  if (v === undefined) return undefined;
  if (v.k !== 'list') throw invalid(`\`${name}\` must be a list, not a \`${typeName(v)}\``, v.loc);
  return v.items;
}

function parseDecision(v: Val | undefined, network: boolean): CodexDecision {
  const raw = str(v, 'decision');
  if (raw === undefined) return 'allow';
  if (raw === 'allow' || raw === 'prompt' || raw === 'forbidden') return raw;
  if (network && raw === 'deny') return 'forbidden';
  throw invalid(`\`${raw}\` is not a decision`, v!.loc, `codex takes \`allow\`, \`prompt\` or \`forbidden\`${network ? ' (or `deny`)' : ''}`);
}

function justification(v: Val | undefined): string | undefined {
  const raw = str(v, 'justification');
  if (raw !== undefined && raw.trim() === '') throw invalid('the justification cannot be empty', v!.loc, 'write why the rule exists, or leave `justification` out');
  return raw;
}

function parseExample(v: Val, kind: Example['kind']): Example {
  if (v.k === 'str') {
    const argv = shlexSplit(v.v);
    if (argv === null) throw invalid(`the example \`${v.v}\` is not valid shell syntax`, v.loc, 'codex splits string examples like a shell (`shlex`): close every quote');
    if (argv.length === 0) throw invalid('an example cannot be an empty string', v.loc);
    return { kind, argv, text: v.v, loc: v.loc };
  }
  if (v.k === 'list') {
    const argv = v.items.map((t) => {
      if (t.k !== 'str') throw invalid(`example words must be strings, not a \`${typeName(t)}\``, t.loc);
      return t.v;
    });
    if (argv.length === 0) throw invalid('an example cannot be an empty list', v.loc);
    return { kind, argv, loc: v.loc };
  }
  throw invalid(`an example must be a string or a list of strings, not a \`${typeName(v)}\``, v.loc);
}

function validateHost(raw: string, loc: Loc): string {
  let host = raw.trim();
  if (host === '') throw invalid('the network rule host cannot be empty', loc);
  if (/:\/\/|[/?#]/.test(host)) throw invalid(`the network rule host \`${raw}\` must be a host name or an IP address, without scheme or path`, loc);
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    const rest = close < 0 ? '' : host.slice(close + 1);
    if (close < 0) throw invalid(`the network rule host \`${raw}\` has an unclosed \`[\``, loc);
    if (rest !== '' && !/^:[0-9]+$/.test(rest)) throw invalid(`the network rule host \`${raw}\` has an unsupported suffix`, loc);
    host = host.slice(1, close);
  } else if ((host.match(/:/g) ?? []).length === 1 && /^.+:[0-9]+$/.test(host)) {
    host = host.slice(0, host.lastIndexOf(':'));
  }
  const normalized = host.replace(/\.+$/, '').trim().toLowerCase();
  if (normalized === '') throw invalid('the network rule host cannot be empty', loc);
  if (normalized.includes('*')) throw invalid(`the network rule host \`${raw}\` must be one host: wildcards are not allowed`, loc);
  if (/\s/.test(normalized)) throw invalid(`the network rule host \`${raw}\` cannot contain spaces`, loc);
  return normalized;
}

/** The command line of an example: as written when bash reads it as the same words, else the argv quoted. */
function exampleCommand(ex: Example): string {
  if (ex.text !== undefined) {
    const parts = analyzeCommand(ex.text).parts;
    const p = parts[0];
    const same = parts.length === 1 && p !== undefined && p.unknowable === null && p.words.length === ex.argv.length && p.words.every((w, i) => !w.dynamic && w.value === ex.argv[i]);
    if (same && ex.text.trim() === ex.text && !ex.text.includes('\n')) return ex.text;
  }
  return quoteArgv(ex.argv);
}

function patternText(call: PrefixCall): string {
  const token = (alts: string[]): string => (alts.length === 1 ? JSON.stringify(alts[0]) : `[${alts.map((a) => JSON.stringify(a)).join(', ')}]`);
  return `[${call.pattern.map((p) => token(p.alts)).join(', ')}]`;
}

function expansions(call: PrefixCall): string[][] {
  let out: string[][] = [[]];
  for (const p of call.pattern) out = out.flatMap((prefix) => [...new Set(p.alts)].map((a) => [...prefix, a]));
  return out;
}

export function importCodexRules(text: string, file: string, opts: PermissionImportOptions = {}): ImportedPolicy {
  try {
    return importRules(text, file, opts);
  } catch (e) {
    const where = { file, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };
    const message = `the rules file could not be read: ${e instanceof Error ? e.message : String(e)}`;
    return { rules: [], tests: [], diagnostics: [diagnostic('import/internal', 'error', message, { span: where, help: 'this is a bug in dshpolicy' })], comments: new Map() };
  }
}

function importRules(text: string, file: string, opts: PermissionImportOptions): ImportedPolicy {
  const index = new LineIndex(text);
  const lines = { pos: (offset: number) => index.position(offset), span: (loc: Loc): Span => index.span(file, loc.start, loc.end) };
  const diagnostics: Diagnostic[] = [];
  const report = (e: unknown): void => {
    if (e instanceof Silent) return;
    if (e instanceof StarlarkError) diagnostics.push(diagnostic(e.code, 'error', e.message, { span: lines.span(e.loc), help: e.help }));
    else diagnostics.push(diagnostic('import/internal', 'error', `the rules file could not be read: ${String(e)}`, { span: lines.span({ start: 0, end: 0 }), help: 'this is a bug in dshpolicy' }));
  };
  const empty: ImportedPolicy = { rules: [], tests: [], diagnostics, comments: new Map() };
  let statements;
  try {
    statements = parseStarlark(text);
  } catch (e) {
    report(e);
    return empty;
  }

  const policy = new CodexPolicy(opts.home);
  const calls: PrefixCall[] = [];
  const hosts: { name: string; loc: Loc }[] = [];
  const poisoned = new Set<string>();
  const env = new (class extends Map<string, Val> {
    override get(name: string): Val | undefined {
      if (poisoned.has(name)) throw new Silent();
      return super.get(name);
    }
  })();
  for (const name of ['prefix_rule', 'host_executable', 'network_rule']) env.set(name, { k: 'builtin', name, loc: { start: 0, end: 0 } });
  env.set('True', { k: 'bool', v: true, loc: { start: 0, end: 0 } });
  env.set('False', { k: 'bool', v: false, loc: { start: 0, end: 0 } });
  env.set('None', { k: 'none', loc: { start: 0, end: 0 } });

  const call = (fn: string, args: EvaluatedArg[], at: Expr): Val => {
    const a = bind(fn, args, at);
    const loc = { start: at.s, end: at.e };
    if (fn === 'prefix_rule') {
      const decision = parseDecision(a.get('decision'), false);
      const just = justification(a.get('justification'));
      const items = list(a.get('pattern'), 'pattern')!;
      const pattern = items.map((t) => {
        if (t.k === 'str') return { alts: [t.v], loc: t.loc };
        if (t.k !== 'list') throw invalid(`a pattern element must be a string or a list of strings, not a \`${typeName(t)}\``, t.loc);
        const alts = t.items.map((x) => {
          if (x.k !== 'str') throw invalid(`a pattern alternative must be a string, not a \`${typeName(x)}\``, x.loc);
          return x.v;
        });
        if (alts.length === 0) throw invalid('pattern alternatives cannot be empty', t.loc);
        return { alts, loc: t.loc };
      });
      if (pattern.length === 0) throw invalid('the pattern cannot be empty', a.get('pattern')!.loc);
      const examples = [
        ...(list(a.get('match'), 'match') ?? []).map((v) => parseExample(v, 'match')),
        ...(list(a.get('not_match'), 'not_match') ?? []).map((v) => parseExample(v, 'not_match')),
      ];
      const start = lines.pos(at.s);
      const id = `${file}:${start.line}:${start.column}`;
      const rest = pattern.slice(1).map((p) => p.alts);
      const codex = [...new Set(pattern[0]!.alts)].map((first) => ({ first, rest, decision, id, ...(just !== undefined ? { justification: just } : {}) }));
      calls.push({ id, loc, pattern, decision, examples, codex, ...(just !== undefined ? { justification: just } : {}) });
      for (const r of codex) policy.add(r);
    } else if (fn === 'host_executable') {
      const nameVal = a.get('name')!;
      const name = str(nameVal, 'name')!;
      if (name === '') throw invalid('the `host_executable` name cannot be empty', nameVal.loc);
      if (name.includes('/') || name === '.' || name === '..') throw invalid(`the \`host_executable\` name must be a bare program name, not \`${name}\``, nameVal.loc);
      const paths: string[] = [];
      for (const p of list(a.get('paths'), 'paths')!) {
        if (p.k !== 'str') throw invalid(`\`host_executable\` paths must be strings, not a \`${typeName(p)}\``, p.loc);
        const abs = absolutePath(p.v, policy.home);
        if (abs === null) throw invalid(`the \`host_executable\` path \`${p.v}\` must be absolute or start with \`~/\``, p.loc);
        if (pathFileName(abs) !== name) throw invalid(`the \`host_executable\` path \`${p.v}\` must end in \`${name}\``, p.loc);
        if (!paths.includes(abs)) paths.push(abs);
      }
      policy.setHostExecutable(name, paths);
      hosts.push({ name, loc });
    } else {
      const protocol = str(a.get('protocol'), 'protocol')!;
      if (!['http', 'https', 'https_connect', 'http-connect', 'socks5_tcp', 'socks5_udp'].includes(protocol)) {
        throw invalid(`\`${protocol}\` is not a network protocol`, a.get('protocol')!.loc, 'codex takes `http`, `https`, `socks5_tcp` or `socks5_udp`');
      }
      parseDecision(a.get('decision'), true);
      justification(a.get('justification'));
      const host = validateHost(str(a.get('host'), 'host')!, a.get('host')!.loc);
      diagnostics.push(
        diagnostic('import/not-imported', 'warning', `the network rule for \`${host}\` is not imported`, {
          span: lines.span(loc),
          help: 'codex applies network rules to the network traffic of sandboxed commands, which dshpolicy does not see; write a `domain` rule for the tools that fetch URLs',
        }),
      );
    }
    return { k: 'none', loc };
  };

  for (const st of statements) {
    try {
      if (st.k === 'expr') evalExpr(st.e, env, call);
      else {
        const old = st.op === '+=' ? env.get(st.name) : undefined;
        if (st.op === '+=' && old === undefined) throw invalid(`\`${st.name}\` is not defined`, st.target);
        let value = evalExpr(st.e, env, call);
        if (old !== undefined) value = addValues(old, value, { start: st.s, end: st.e.e });
        env.set(st.name, value);
        poisoned.delete(st.name);
      }
    } catch (e) {
      report(e);
      if (st.k === 'assign') poisoned.add(st.name);
    }
  }

  // Codex checks each call's examples against that call's rules (and every host_executable) once the file is read.
  for (const c of calls) {
    const own = new CodexPolicy(policy.home);
    for (const r of c.codex) own.add(r);
    for (const h of hosts) own.setHostExecutable(h.name, policy.hostExecutable(h.name) ?? []);
    for (const ex of c.examples) {
      const matched = own.matches(ex.argv).length > 0;
      const shownEx = exampleCommand(ex);
      if (ex.kind === 'not_match' && matched) {
        diagnostics.push(diagnostic('import/example-mismatch', 'error', `the example \`${shownEx}\` is in \`not_match\` but the rule matches it`, { span: lines.span(ex.loc), help: 'codex refuses to load a rules file whose examples fail; fix the pattern or the example' }));
      } else if (ex.kind === 'match' && !matched) {
        diagnostics.push(diagnostic('import/example-mismatch', 'error', `the example \`${shownEx}\` is in \`match\` but the rule does not match it`, { span: lines.span(ex.loc), help: 'codex refuses to load a rules file whose examples fail; fix the pattern or the example' }));
      }
    }
  }

  const rules: Rule[] = [];
  const comments = new Map<Rule, string[]>();
  const diffRules: DiffRule[] = [];
  const byId = new Map<string, Rule>();
  for (const c of calls) {
    const exp = expansions(c);
    if (exp.length > MAX_PATTERNS) {
      diagnostics.push(diagnostic('import/too-large', 'error', `this pattern expands to ${exp.length} command patterns; at most ${MAX_PATTERNS} are imported`, { span: lines.span(c.loc), help: 'split the rule into several `prefix_rule` calls' }));
      continue;
    }
    const kept: string[][] = [];
    const patterns: string[] = [];
    for (const tokens of exp) {
      // word by word, as codex compares argv prefixes
      const pattern = `${tokens.map((t, i) => (i === 0 ? exactProgramWord(quoteWord(t, true)) : quoteWord(t))).join(' ')} *`;
      const problem = checkCommandPattern(pattern);
      if (problem) {
        diagnostics.push(diagnostic('import/unsayable', 'error', `the pattern \`${quoteArgv(tokens)}\` cannot be said as a command pattern: ${problem.message}`, { span: lines.span(c.loc) }));
        continue;
      }
      kept.push(tokens);
      patterns.push(pattern);
    }
    if (patterns.length === 0) continue;
    const effect = EFFECT[c.decision];
    const rule: Rule = { id: c.id, seam: 'pre-tool', effect, tools: ['Bash'], selectors: [{ kind: 'command', patterns }], span: lines.span(c.loc) };
    if (effect !== 'allow' && c.justification !== undefined) rule.reason = c.justification;
    const notes = [`codex rule at ${c.id}: prefix_rule(pattern=${patternText(c)}, decision=${JSON.stringify(c.decision)})`];
    if (effect === 'allow' && c.justification !== undefined) notes.push(`its justification (an allow shows no reason here): ${c.justification}`);
    rules.push(rule);
    comments.set(rule, notes);
    byId.set(c.id, rule);
    diffRules.push({ id: c.id, effect, expansions: kept, compiled: patterns.map(compileCommandPattern) });
  }

  for (const [id, diffs] of ruleDifferences(diffRules)) {
    const rule = byId.get(id)!;
    const [first, ...rest] = diffs;
    diagnostics.push(
      diagnostic('import/approximate', 'warning', first!.text, {
        span: rule.span,
        help: [...rest.map((d) => d.text), 'codex matches the argv a command runs with, word for word, where dshpolicy reads the command line as bash does'].join('; '),
      }),
    );
    for (const d of diffs) comments.get(rule)!.push(`differs from codex: ${d.text}`);
  }
  const fileWide = fileDifferences(diffRules);
  if (fileWide.length > 0) {
    diagnostics.push(
      diagnostic('import/command-reading', 'warning', 'dshpolicy reads command lines where codex matches argvs, so wrapped, path-run and nested commands are decided differently', {
        span: lines.span({ start: 0, end: 0 }),
        help: fileWide.join('; '),
      }),
    );
  }
  const lastHosts = new Map(hosts.map((h) => [h.name, h]));
  for (const h of lastHosts.values()) {
    if (!calls.some((c) => c.codex.some((r) => r.first === h.name))) continue;
    const paths = policy.hostExecutable(h.name) ?? [];
    diagnostics.push(
      diagnostic('import/not-imported', 'warning', `\`host_executable\` for \`${h.name}\` is not imported: here rules for \`${h.name}\` apply to it run from any path, not only ${paths.length > 0 ? paths.map((p) => `\`${p}\``).join(', ') : 'its bare name'}`, {
        span: lines.span(h.loc),
        help: `\`deny\` and \`ask\` rules for \`${h.name}\` apply to \`${h.name}\` run from any directory, \`allow\` rules to \`${h.name}\` in the system bin directories`,
      }),
    );
  }

  const tests: TestCase[] = [];
  for (const c of calls) {
    for (const ex of c.examples) {
      const command = exampleCommand(ex);
      tests.push({
        name: `${c.id} ${ex.kind} \`${command}\``,
        event: { seam: 'pre-tool', tool: 'Bash', input: { command } },
        expect: decisionWord(policy.decide(ex.argv)),
        span: lines.span(ex.loc),
      });
    }
  }
  return { rules, tests, diagnostics, comments };
}
