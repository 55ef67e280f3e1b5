/**
 * Writes golden.jsonl.gz: one `[command, JSON.stringify(analyzeCommand(command))]` line per
 * command of the corpus (generated commands, string literals of the shell tests, and the commands
 * of the spec and example fixtures). Rerun it only when the analysis is meant to change:
 *
 *   npx esbuild engine/shell/testdata/record-golden.ts --bundle --platform=node --format=cjs \
 *     --outfile=/tmp/record-golden.cjs && node /tmp/record-golden.cjs
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { analyzeCommand } from '../index.js';
import { generateCorpus } from './corpus.js';

const ROOT = process.cwd();

const LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.|\$(?!\{))*`/g;

/** String literals of a TypeScript file, decoded (anything that does not decode is skipped). */
function literals(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(LITERAL)) {
    try {
      const value: unknown = new Function(`return ${m[0]};`)();
      if (typeof value === 'string') out.push(value);
    } catch {
      // not a literal after all
    }
  }
  return out;
}

/** `"command": "..."` values in fixture files under `dir`. */
function fixtureCommands(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        for (const m of readFileSync(p, 'utf8').matchAll(/"command"\s*:\s*("(?:[^"\\\n]|\\.)*")/g)) {
          try {
            out.push(JSON.parse(m[1]!) as string);
          } catch {
            // not JSON
          }
        }
    }
  };
  walk(dir);
  return out;
}

const shellDir = join(ROOT, 'engine/shell');
const commands: string[] = [];
for (const name of readdirSync(shellDir).sort()) if (name.endsWith('.test.ts')) commands.push(...literals(join(shellDir, name)));
commands.push(...literals(join(ROOT, 'bridges/claude/permission-rule.test.ts')));
commands.push(...fixtureCommands(join(ROOT, 'specs')), ...fixtureCommands(join(ROOT, 'examples')));
commands.push(...generateCorpus());

const seen = new Set<string>();
const lines: string[] = [];
for (const c of commands) {
  if (seen.has(c)) continue;
  seen.add(c);
  lines.push(JSON.stringify([c, JSON.stringify(analyzeCommand(c))]));
}
const out = join(shellDir, 'testdata/golden.jsonl.gz');
writeFileSync(out, gzipSync(lines.join('\n') + '\n', { level: 9 }));
console.log(`${lines.length} commands -> ${out} (${statSync(out).size} bytes)`);
