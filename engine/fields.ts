/**
 * Field access for `when` conditions and selectors. Each event gets one `EventView` that computes
 * derived facts (the command's parts, the resolved path, the URL's host) at most once.
 */
import { homedir } from 'node:os';
import type { PolicyEvent } from './events.js';
import type { FieldRef } from './ir.js';
import { analyzeCommand, type CommandAnalysis } from './shell/index.js';
import { fastHostname, hostOfValue, parseUrl, resolveToolPathSegments, type PathContext } from './match/index.js';
import { PATH_INPUT_FIELDS } from './tools.js';

let cachedHome: string | undefined;
function defaultHome(): string {
  cachedHome ??= homedir();
  return cachedHome;
}

export class EventView {
  readonly event: PolicyEvent;
  private analysis: CommandAnalysis | undefined;
  private resolvedPath: string | null | undefined;
  private segments: string[] | null | undefined;
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
    }
    return this.analysis;
  }

  /** The tool's path argument, absolute and normalised; undefined when the call has none. */
  path(): string | undefined {
    if (this.resolvedPath === undefined) {
      const segments = this.pathSegments();
      this.resolvedPath = segments === undefined ? null : '/' + segments.join('/');
    }
    return this.resolvedPath ?? undefined;
  }

  /** The segments of `path()` (`/repo/a` is `['repo', 'a']`); undefined when the call has no path. */
  pathSegments(): string[] | undefined {
    if (this.segments === undefined) {
      this.segments = null;
      const input = this.input;
      if (input) {
        for (const f of PATH_INPUT_FIELDS) {
          const v = input[f];
          if (typeof v === 'string' && v.length > 0) {
            this.segments = resolveToolPathSegments(v, this.pathContext);
            break;
          }
        }
      }
    }
    return this.segments ?? undefined;
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
