/**
 * URL globs and domain globs.
 *
 * URL glob, e.g. `https://github.com/acme/*`, `*://*.example.com/**`, `github.com/acme/**`:
 * - The tested value is parsed with `new URL()`; a value that does not parse never matches.
 *   Scheme, host, port and path are matched separately; user info (`user:pass@`) is ignored.
 * - Scheme: the part before `://`, compared case-insensitively; without `://` any scheme matches.
 * - Host: compared case-insensitively with the URL's host name (punycode for international names,
 *   trailing dot ignored); `*` in the host matches any run of characters, dots included, so
 *   `*.example.com` matches `a.b.example.com` but not `example.com`.
 * - Port: `host:8080` must match the URL's port (default ports count: `https://x:443` matches
 *   `https://x/`); `host:*` or no port in the glob matches any port.
 * - Path: everything from the first `/` after the host (`/` when absent). `*` matches any run of
 *   characters except `/`; `**` matches any run including `/`. The path is compared in the form
 *   `new URL` gives it (dot segments resolved, percent-encoding kept, except that encoded unreserved
 *   characters such as `%61` are decoded first).
 * - Query and fragment: ignored unless the glob contains `?` (then the query is part of the tested
 *   text) or `#` (then the fragment is too). `?` and `[` are literal characters in URL globs.
 * - `\` escapes the next character.
 *
 * Domain glob, e.g. `example.com`, `*.example.com`, `*`: case-insensitive; `*.example.com` matches
 * subdomains at any depth but not `example.com` itself; `*` matches any host. The tested value may
 * be a host (`example.com`, `example.com:8080`, even `example.com/path`) or a URL (anything starting
 * with `scheme://`); a trailing dot and a port are ignored. A URL that does not parse never matches.
 */
import { isSlash, nfaRunner, codePoints, tokenizeGlob, tokensToPredicate, tokensToSteps, type NfaStep } from './glob.js';
import { describeChar, isWhitespaceOrControl, quote, type MatchError, type Matcher } from './types.js';

interface UrlGlobParts {
  /** Lowercased scheme glob, or null for any scheme. */
  readonly scheme: string | null;
  readonly schemeOffset: number;
  readonly host: string;
  readonly hostOffset: number;
  /** Port glob text, or null when the glob names no port. */
  readonly port: string | null;
  readonly portOffset: number;
  /** Path, query and fragment glob text; starts with `/`. */
  readonly rest: string;
  readonly restOffset: number;
  readonly userInfoOffset: number;
}

function splitUrlGlob(glob: string): UrlGlobParts {
  let sep = glob.indexOf('://');
  // A `://` after the first `/`, `?` or `#` is inside the path or query, not a scheme separator.
  if (sep >= 0 && /[/?#]/u.test(glob.slice(0, sep))) sep = -1;
  const scheme = sep >= 0 ? glob.slice(0, sep).toLowerCase() : null;
  const afterScheme = sep >= 0 ? sep + 3 : 0;
  let authorityEnd = glob.length;
  for (let i = afterScheme; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '/' || c === '?' || c === '#') {
      authorityEnd = i;
      break;
    }
  }
  let authorityStart = afterScheme;
  const authority = glob.slice(afterScheme, authorityEnd);
  const at = authority.lastIndexOf('@');
  const userInfoOffset = at >= 0 ? afterScheme : -1;
  if (at >= 0) authorityStart = afterScheme + at + 1;
  const hostPort = glob.slice(authorityStart, authorityEnd);
  let hostEnd = hostPort.length;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close >= 0 && hostPort[close + 1] === ':') hostEnd = close + 1;
  } else {
    const colon = hostPort.lastIndexOf(':');
    if (colon >= 0) hostEnd = colon;
  }
  const host = hostPort.slice(0, hostEnd);
  const port = hostEnd < hostPort.length ? hostPort.slice(hostEnd + 1) : null;
  let rest = glob.slice(authorityEnd);
  let restOffset = authorityEnd;
  if (!rest.startsWith('/')) {
    rest = '/' + rest;
    restOffset -= 1;
  }
  return {
    scheme,
    schemeOffset: 0,
    host,
    hostOffset: authorityStart,
    port,
    portOffset: authorityStart + hostEnd + 1,
    rest,
    restOffset,
    userInfoOffset,
  };
}

/** `%XX` escapes of unreserved characters are decoded; other escapes get uppercase hex. */
function normalizePercent(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/gu, (_all, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/u.test(ch) ? ch : '%' + hex.toUpperCase();
  });
}

function stripTrailingDot(host: string): string {
  return host.length > 1 && host.endsWith('.') ? host.slice(0, -1) : host;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443', ftp: '21' };

const notSlash = (cp: number): boolean => !isSlash(cp);

export function checkUrlGlob(glob: string): MatchError | null {
  if (glob.length === 0) return { message: 'empty url glob', offset: 0 };
  let offset = 0;
  for (const ch of glob) {
    if (isWhitespaceOrControl(ch)) return { message: `unexpected ${describeChar(ch)} in url glob`, offset };
    offset += ch.length;
  }
  const parts = splitUrlGlob(glob);
  if (parts.scheme !== null) {
    if (parts.scheme.length === 0) return { message: 'missing scheme before `://` (write `*://` for any scheme)', offset: 0 };
    const bad = /[^a-z0-9+.*-]/u.exec(parts.scheme);
    if (bad) return { message: `unexpected ${describeChar(bad[0])} in url scheme ${quote(parts.scheme)}`, offset: bad.index };
  }
  if (parts.userInfoOffset >= 0) {
    return {
      message: 'user info (`user@`) is not supported in a url glob: it is ignored when matching',
      offset: parts.userInfoOffset,
    };
  }
  if (parts.host.length === 0) {
    return { message: 'missing host in url glob (write `*` for any host)', offset: parts.hostOffset };
  }
  const badHost = /[^A-Za-z0-9\-._*[\]:%]/u.exec(parts.host);
  if (badHost) {
    const nonAscii = (badHost[0].codePointAt(0) ?? 0) > 0x7f;
    return {
      message: nonAscii
        ? `non-ascii host ${quote(parts.host)}: write it in its punycode (\`xn--\`) form`
        : `unexpected ${describeChar(badHost[0])} in url host ${quote(parts.host)}`,
      offset: parts.hostOffset + badHost.index,
    };
  }
  if (parts.port !== null && !/^(\d{1,5}|\*)$/u.test(parts.port)) {
    return { message: `invalid port ${quote(parts.port)} in url glob: write digits or \`*\``, offset: parts.portOffset };
  }
  const { problems } = tokenizeGlob(parts.rest, { wildcards: false }, parts.restOffset);
  return problems[0] ?? null;
}

/** A URL glob's matcher: `test` parses the value; `testUrl` takes a URL already parsed. */
export interface UrlMatcher extends Matcher {
  testUrl(url: URL): boolean;
}

const NEVER_URL: UrlMatcher = { test: () => false, testUrl: () => false };

/** Compiles a URL glob; an invalid glob still compiles (best effort) and never throws. */
export function compileUrlGlob(glob: string): UrlMatcher {
  if (typeof glob !== 'string' || glob.length === 0) return NEVER_URL;
  let parts: UrlGlobParts;
  try {
    parts = splitUrlGlob(glob);
  } catch {
    return NEVER_URL;
  }
  const schemeTest = parts.scheme === null ? null : tokensToPredicate(tokenizeGlob(parts.scheme, { wildcards: false }).tokens);
  const hostGlob = stripTrailingDot(parts.host.toLowerCase());
  const hostTest = tokensToPredicate(tokenizeGlob(hostGlob, { wildcards: false }).tokens);
  const port = parts.port;
  const withQuery = parts.rest.split('#')[0]!.includes('?');
  const withFragment = parts.rest.includes('#');
  const restSteps: NfaStep<number>[] = tokensToSteps(tokenizeGlob(parts.rest, { wildcards: false }).tokens, {
    star: notSlash,
  });
  const runRest = nfaRunner(restSteps);
  const testUrl = (url: URL): boolean => {
    try {
      const scheme = url.protocol.replace(/:$/u, '').toLowerCase();
      if (schemeTest !== null && !schemeTest(scheme)) return false;
      if (!hostTest(stripTrailingDot(url.hostname.toLowerCase()))) return false;
      if (port !== null && port !== '*') {
        const actual = url.port !== '' ? url.port : (DEFAULT_PORTS[scheme] ?? '');
        if (String(Number(port)) !== actual) return false;
      }
      let tested = normalizePercent(url.pathname);
      if (!tested.startsWith('/')) tested = '/' + tested;
      if (withQuery) tested += url.search;
      if (withFragment) tested += url.hash;
      return runRest(codePoints(tested));
    } catch {
      return false;
    }
  };
  return {
    test(value: string): boolean {
      const url = parseUrl(value);
      return url !== null && testUrl(url);
    },
    testUrl,
  };
}

/** `new URL(value)`, or null when the value is not a string or does not parse. */
export function parseUrl(value: string): URL | null {
  if (typeof value !== 'string') return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Domain globs

/** The lowercased host of a host-or-URL value (no port, no trailing dot), or null. */
export function hostOfValue(value: string): string | null {
  if (typeof value !== 'string') return null;
  let host: string;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//u.test(value)) {
    const fast = fastHostname(value);
    if (fast !== null) {
      host = fast;
    } else {
      try {
        host = new URL(value).hostname;
      } catch {
        return null;
      }
    }
  } else {
    try {
      host = new URL('http://' + value).hostname;
    } catch {
      host = value;
    }
  }
  host = stripTrailingDot(host.toLowerCase());
  return host.length > 0 ? host : null;
}

/**
 * `new URL(value).hostname` for the plain `http(s)://host/...` URLs tools are called with,
 * without building a URL; null for anything else (ports, user info, IP-like or punycode hosts,
 * other schemes), which the caller parses with `URL`. The host is letters, digits, dots and
 * dashes, ended by the end of the value or `/`, `?` or `#`; its last label must not read as a
 * number (`12`, `0x1f`), which URL parses as an IPv4 address.
 */
export function fastHostname(value: string): string | null {
  let i: number;
  if (startsWithFold(value, 'https://')) i = 8;
  else if (startsWithFold(value, 'http://')) i = 7;
  else return null;
  const start = i;
  let labelStart = i;
  let lastStart = i;
  let lastEnd = i;
  let upper = false;
  for (; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    if (c === 0x2e) {
      if (i > labelStart) {
        lastStart = labelStart;
        lastEnd = i;
      }
      if (isPunycodeAt(value, labelStart)) return null;
      labelStart = i + 1;
      continue;
    }
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d)) return null;
  }
  if (i === start) return null;
  if (i > labelStart) {
    if (isPunycodeAt(value, labelStart)) return null;
    lastStart = labelStart;
    lastEnd = i;
  }
  if (lastEnd === lastStart || isNumberLabel(value, lastStart, lastEnd)) return null;
  const host = value.slice(start, i);
  return upper ? host.toLowerCase() : host;
}

function startsWithFold(value: string, prefix: string): boolean {
  if (value.length < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) {
    let c = value.charCodeAt(k);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== prefix.charCodeAt(k)) return false;
  }
  return true;
}

function isPunycodeAt(value: string, at: number): boolean {
  return startsWithFold(value.slice(at, at + 4), 'xn--');
}

/** Digits only, or `0x` and hex digits: what URL's IPv4 parser takes as a number. */
function isNumberLabel(value: string, from: number, to: number): boolean {
  let k = from;
  let hex = false;
  if (to - from >= 2 && value.charCodeAt(k) === 0x30 && (value.charCodeAt(k + 1) | 0x20) === 0x78) {
    hex = true;
    k += 2;
  }
  for (; k < to; k++) {
    const c = value.charCodeAt(k) | 0;
    const digit = c >= 0x30 && c <= 0x39;
    const hexLetter = hex && ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
    if (!digit && !hexLetter) return false;
  }
  return true;
}

export function checkDomainGlob(glob: string): MatchError | null {
  if (glob.length === 0) return { message: 'empty domain glob', offset: 0 };
  let offset = 0;
  for (const ch of glob) {
    if (!/^[A-Za-z0-9.*-]$/u.test(ch)) {
      return {
        message: `unexpected ${describeChar(ch)} in domain glob ${quote(glob)}: only letters, digits, \`-\`, \`.\` and a leading \`*.\` are allowed`,
        offset,
      };
    }
    offset += ch.length;
  }
  const body = glob.length > 1 && glob.endsWith('.') ? glob.slice(0, -1) : glob;
  if (body === '*') return null;
  let start = 0;
  const labels = body.split('.');
  for (let k = 0; k < labels.length; k++) {
    const label = labels[k]!;
    if (label.length === 0) return { message: `empty label in domain glob ${quote(glob)}`, offset: start };
    const star = label.indexOf('*');
    if (star >= 0 && !(k === 0 && label === '*')) {
      return {
        message: '`*` is only allowed as a whole leading label (`*.example.com`) or as the whole glob',
        offset: start + star,
      };
    }
    start += label.length + 1;
  }
  return null;
}

/** A domain glob's matcher: `test` takes a host or URL; `testHost` a host already normalised by `hostOfValue`. */
export interface DomainMatcher extends Matcher {
  testHost(host: string): boolean;
}

/**
 * The literal end every host the glob accepts has, label-aligned (`*.example.com` gives
 * `example.com`, `api.x.io` gives itself); null for `*`.
 */
export function requiredDomainKey(glob: string): string | null {
  if (typeof glob !== 'string' || glob.length === 0) return null;
  const body = stripTrailingDot(glob.toLowerCase());
  if (body === '*' || body.slice(body.startsWith('*.') ? 2 : 0).includes('*')) return null;
  return body.startsWith('*.') ? body.slice(2) : body;
}

/** Compiles a domain glob; an invalid glob still compiles (best effort) and never throws. */
export function compileDomainGlob(glob: string): DomainMatcher {
  if (typeof glob !== 'string' || glob.length === 0) return { test: () => false, testHost: () => false };
  const body = stripTrailingDot(glob.toLowerCase());
  let accepts: (host: string) => boolean;
  if (body === '*') accepts = () => true;
  else if (body.startsWith('*.')) {
    const suffix = body.slice(1);
    accepts = (host) => host.length > suffix.length && host.endsWith(suffix);
  } else accepts = (host) => host === body;
  return {
    test(value: string): boolean {
      try {
        const host = hostOfValue(value);
        return host !== null && accepts(host);
      } catch {
        return false;
      }
    },
    testHost: (host: string) => typeof host === 'string' && accepts(host),
  };
}
