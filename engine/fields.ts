/**
 * Field access for `when` conditions and selectors. Each event gets one `EventView` that computes
 * derived facts (the command's parts, the resolved path, the URL's host) at most once.
 */
import { homedir } from 'node:os';
import type { PolicyEvent } from './events.js';
import type { FieldRef } from './ir.js';
import { analyzeCommand, commandPaths, foreignShellTool, opaqueReason, unknowablePart, type CommandAnalysis } from './shell/index.js';
import { fastHostname, hostOfValue, parseUrl, type PathContext } from './match/index.js';
import { commandPathFacts, firstPathText, pathFactsOf, type PathFacts } from './match/path-facts.js';
import { pathEnv, type PathEnv } from './match/path-read.js';
import { SHELL_TOOLS } from './tools.js';

let cachedHome: string | undefined;
function defaultHome(): string {
  cachedHome ??= homedir();
  return cachedHome;
}

export class EventView {
  readonly event: PolicyEvent;
  private analysis: CommandAnalysis | undefined;
  private resolvedPath: string | null | undefined;
  private facts: PathFacts | null | undefined;
  private env: PathEnv | undefined;
  private host: string | null | undefined;
  private matchedHost: string | null | undefined;
  private parsed: URL | null | undefined;
  private callViews: EventView[] | undefined;
  private context: PathContext | undefined;
  /** Fields whose text was longer than regexes search (`MAX_REGEX_INPUT`), by name. */
  capped: Set<string> | undefined;

  constructor(event: PolicyEvent) {
    this.event = event;
  }

  get pathContext(): PathContext {
    return (this.context ??= { cwd: this.event.cwd ?? '/', home: this.event.home ?? defaultHome() });
  }

  /** The event's working and home directories as paths are read against them. */
  get pathEnv(): PathEnv {
    return (this.env ??= pathEnv(this.event.cwd, this.event.home ?? defaultHome()));
  }

  get input(): Record<string, unknown> | undefined {
    const e = this.event;
    return e.seam === 'pre-tool' || e.seam === 'post-tool' ? e.input : undefined;
  }

  get tool(): string | undefined {
    const e = this.event;
    return e.seam === 'pre-tool' || e.seam === 'post-tool' ? e.tool : undefined;
  }

  get command(): string | undefined {
    const c = this.input?.['command'];
    return typeof c === 'string' ? c : undefined;
  }

  /** The command split into simple commands; undefined when the call has no command. */
  commandAnalysis(): CommandAnalysis | undefined {
    if (this.analysis === undefined) {
      const c = this.command;
      if (c === undefined) return undefined;
      this.analysis = analyzeCommand(c);
      // PowerShell's language is not bash's: its commands are read with bash's rules for deny and
      // ask, and the call is opaque
      const shell = foreignShellTool(this.tool);
      if (shell !== null) this.analysis.parts.push(unknowablePart(c, `${shell} commands are not read with ${shell}'s own rules`));
    }
    return this.analysis;
  }

  /** The paths the call touches (files and searches, match/path-facts.ts); undefined when it names none. */
  pathFacts(): PathFacts | undefined {
    if (this.facts === undefined) {
      const e = this.event;
      if (e.seam !== 'pre-tool' && e.seam !== 'post-tool') this.facts = null;
      else if (SHELL_TOOLS.includes(e.tool) && typeof e.input['command'] === 'string') {
        // a shell command: the paths its words and redirections may name
        const paths = commandPaths(this.commandAnalysis()!);
        this.facts = commandPathFacts(paths.paths, paths.unknown, () => this.pathEnv);
      } else this.facts = pathFactsOf(e.tool, e.input, () => this.pathEnv);
    }
    return this.facts ?? undefined;
  }

  /** The call's first path (a file, else a searched directory) as text; undefined when it has none. */
  path(): string | undefined {
    if (this.resolvedPath === undefined) {
      const facts = this.pathFacts();
      this.resolvedPath = (facts && firstPathText(facts)) ?? null;
    }
    return this.resolvedPath ?? undefined;
  }

  /**
   * What a rule index can look path globs up by for any call: every folded reading of every file
   * (a glob that matches the call matches one of them); null when the call is opaque or searches,
   * where any path rule may match; undefined when it names no path.
   */
  pathKeyReadings(): readonly (readonly string[])[] | null | undefined {
    const facts = this.pathFacts();
    if (facts === undefined) return undefined;
    if (facts.opaque || facts.searches.length > 0) return null;
    const files = facts.files;
    return files.length === 1 ? files[0]!.folded : files.flatMap((f) => f.folded);
  }

  /** A view of one tool call of a stop event's turn, sharing this event's cwd and home. */
  forToolCall(call: { tool: string; input: Record<string, unknown> }): EventView {
    const e = this.event;
    const ev: PolicyEvent = { seam: 'pre-tool', tool: call.tool, input: call.input };
    if (e.cwd !== undefined) ev.cwd = e.cwd;
    if (e.home !== undefined) ev.home = e.home;
    return new EventView(ev);
  }

  /** Views of the stop event's tool calls, made once and shared by every rule that reads them. */
  turnViews(): EventView[] {
    if (this.callViews === undefined) {
      const e = this.event;
      this.callViews = e.seam === 'stop' ? e.turn.map((call) => this.forToolCall(call)) : [];
    }
    return this.callViews;
  }

  url(): string | undefined {
    const u = this.input?.['url'];
    return typeof u === 'string' ? u : undefined;
  }

  /** The URL parsed (`new URL`), or undefined when there is none or it does not parse. */
  parsedUrl(): URL | undefined {
    if (this.parsed === undefined) {
      const u = this.url();
      this.parsed = u === undefined ? null : parseUrl(u);
    }
    return this.parsed ?? undefined;
  }

  domain(): string | undefined {
    if (this.host === undefined) {
      this.host = null;
      const u = this.url();
      if (u !== undefined) {
        const fast = fastHostname(u);
        this.host = fast ?? this.parsedUrl()?.hostname.toLowerCase() ?? null;
      }
    }
    return this.host ?? undefined;
  }

  /** The host as domain globs compare it (`hostOfValue`: no trailing dot); undefined when none. */
  matchHost(): string | undefined {
    if (this.matchedHost === undefined) {
      const d = this.domain();
      const plain = d === undefined ? null : fastHostname('http://' + d);
      const host = plain !== null && plain.length > 1 && plain.endsWith('.') ? plain.slice(0, -1) : plain;
      this.matchedHost = d === undefined ? null : host !== null && host.length > 0 ? host : hostOfValue(d);
    }
    return this.matchedHost ?? undefined;
  }

  /** Records that a regex searched only the start of a field's text. */
  noteCapped(field: string): void {
    (this.capped ??= new Set()).add(field);
  }

  /** The value of a field, or undefined when the event does not have it. */
  field(ref: FieldRef): unknown {
    const e = this.event;
    let base: unknown;
    switch (ref.name) {
      case 'tool':
        base = this.tool;
        break;
      case 'input':
        base = this.input;
        break;
      case 'command':
        base = this.command;
        break;
      case 'opaque': {
        const analysis = this.commandAnalysis();
        base = analysis === undefined ? undefined : opaqueReason(analysis);
        break;
      }
      case 'path':
        base = this.path();
        break;
      case 'url':
        base = this.url();
        break;
      case 'domain':
        base = this.domain();
        break;
      case 'output':
        base = e.seam === 'post-tool' ? e.output : undefined;
        break;
      case 'response':
        base = e.seam === 'post-tool' ? e.response : undefined;
        break;
      case 'prompt':
        base = e.seam === 'prompt' ? e.prompt : undefined;
        break;
      case 'source':
        base = e.seam === 'session-start' ? e.source : undefined;
        break;
      case 'stop_hook_active':
        base = e.seam === 'stop' ? e.stop_hook_active : undefined;
        break;
      case 'last_message':
        base = e.seam === 'stop' ? e.last_message : undefined;
        break;
      case 'cwd':
        base = e.cwd;
        break;
      case 'permission_mode':
        base = e.permission_mode;
        break;
      case 'session':
        base = e.session;
        break;
      default:
        base = undefined;
    }
    if (ref.path) {
      for (const key of ref.path) {
        if (base === null || typeof base !== 'object') return undefined;
        if (Array.isArray(base)) {
          const i = Number(key);
          base = Number.isInteger(i) && i >= 0 ? base[i] : undefined;
        } else {
          base = Object.prototype.hasOwnProperty.call(base, key) ? (base as Record<string, unknown>)[key] : undefined;
        }
      }
    }
    return base;
  }
}

/** A field value as text for `matches`/`contains`/...: strings as they are, other JSON as JSON. */
export function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
