/**
 * Reading a tool's path argument the way an operating system may read it, for the `path` selector.
 *
 * A path is resolved to one or more **readings**, each a list of segments (`/repo/a` is
 * `['repo', 'a']`):
 * - the POSIX reading: `~` and `~/` from the home directory, relative paths from the working
 *   directory, `.` and `..` resolved, empty segments dropped; the kernel's magic links are followed
 *   while walking (`/proc/self/root/x` is `/x`, `/proc/self/cwd/x` is the working directory's `x`);
 * - the Windows reading, for a Windows working directory, and beside the POSIX one for a path that
 *   looks like a Windows path (a drive letter or a backslash): `\` and `/` both separate, `C:` and
 *   UNC roots (`\\server\share`, `\\?\C:\`, `\\.\UNC\...`) become a first segment that starts with
 *   `//` (no POSIX segment can), a stream suffix (`.env:x`, `.env::$DATA`) and trailing dots and
 *   spaces (`.env.`, `.env `) are dropped from each segment as Win32 drops them.
 *
 * `all` holds every reading a deny must consider (also ones only some systems would use: macOS's
 * `/private/etc` for `/etc`, `/System/Volumes/Data/Users` for `/Users`, `/Volumes/<disk>/x` for
 * `/x`, MSYS's `/c/x` for `C:\x`); `real` says how many of them, from the first, an allow must
 * cover. A path is **opaque** when what it names cannot be known from the text: a descriptor the
 * process opened (`/dev/fd/3`, `/proc/self/fd/3`; 0 to 2 are the standard streams), another
 * process's working directory or descriptors, a memory-mapped file, the process's program, a
 * Windows device path.
 *
 * Case: `foldSegment` folds a segment for case-insensitive comparison (macOS and Windows file
 * systems): ASCII is lower-cased directly; other text is put in NFC, loses the code points HFS+
 * ignores, and each code point is mapped through upper then lower case. Folded readings also drop
 * a drive root, so that `C:\repo\.env` and `/repo/.env` fold alike.
 */
// ---------------------------------------------------------------------------------------------
// Case folding

const foldCache = new Map<number, number>();

function singleCodePoint(text: string): number | null {
  const cp = text.codePointAt(0);
  if (cp === undefined) return null;
  return text.length === (cp > 0xffff ? 2 : 1) ? cp : null;
}

/** One code point, case-folded: upper then lower case, kept when either step would change its length. */
export function foldCodePoint(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  const cached = foldCache.get(cp);
  if (cached !== undefined) return cached;
  const text = String.fromCodePoint(cp);
  const upper = singleCodePoint(text.toUpperCase()) ?? cp;
  const folded = singleCodePoint(String.fromCodePoint(upper).toLowerCase()) ?? singleCodePoint(text.toLowerCase()) ?? cp;
  if (foldCache.size < 4096) foldCache.set(cp, folded);
  return folded;
}

/** Code points HFS+ ignores in names (zero-width joiners, direction marks, the BOM): `.g\u200cit` is `.git` there. */
export function isIgnorableCodePoint(cp: number): boolean {
  return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff;
}

/** A segment (or any text) folded for case-insensitive comparison; the same string when nothing changes. */
export function foldSegment(text: string): string {
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return foldUnicode(text);
    if (c >= 0x41 && c <= 0x5a) upper = true;
  }
  return upper ? text.toLowerCase() : text;
}

function foldUnicode(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const cp = ch.codePointAt(0)!;
    if (isIgnorableCodePoint(cp)) continue;
    out += String.fromCodePoint(foldCodePoint(cp));
  }
  return out;
}

/** Whether a first segment is a Windows root (`//C:`, `//server/share`). */
export function isRootMarker(segment: string | undefined): boolean {
  return segment !== undefined && segment.startsWith('//');
}

function isDriveMarker(segment: string | undefined): boolean {
  return segment !== undefined && segment.length === 4 && segment.startsWith('//') && segment.charCodeAt(3) === 0x3a;
}

/** A reading folded: every segment folded, a drive root dropped. The same array when nothing changes. */
export function foldReading(segments: readonly string[]): readonly string[] {
  const start = isDriveMarker(segments[0]) ? 1 : 0;
  let out: string[] | null = start === 1 ? segments.slice(1) : null;
  for (let i = start; i < segments.length; i++) {
    const s = segments[i]!;
    const f = foldSegment(s);
    if (f !== s) {
      out ??= segments.slice(start);
      out[i - start] = f;
    }
  }
  return out ?? segments;
}

/** A reading as text: `/repo/a`, `C:/repo/a`, `//server/share/a`. */
export function renderReading(segments: readonly string[]): string {
  const first = segments[0];
  if (isRootMarker(first)) {
    const root = isDriveMarker(first) ? first!.slice(2) : first!;
    return segments.length === 1 ? `${root}/` : `${root}/${segments.slice(1).join('/')}`;
  }
  return '/' + segments.join('/');
}

// ---------------------------------------------------------------------------------------------
// The event's directories

/** The working and home directories of an event, resolved once for every path of it. */
export interface PathEnv {
  readonly cwd: string;
  readonly home: string;
  /** The working directory is a Windows path: paths are read the Windows way only. */
  readonly windows: boolean;
  readonly cwdSegments: readonly string[];
  readonly homeSegments: readonly string[];
  readonly cwdFolded: readonly string[];
  readonly homeFolded: readonly string[];
  /** The working directory's drive root (`//C:`) on a Windows host, else null. */
  readonly drive: string | null;
}

const DRIVE_ABSOLUTE = /^[A-Za-z]:[\\/]/u;

function looksWindowsAbsolute(path: string): boolean {
  return DRIVE_ABSOLUTE.test(path) || path.startsWith('\\\\');
}

/** Environments already made, by working and then home directory: the events of a session share one. */
const envCache = new Map<string, Map<string, PathEnv>>();
let envCount = 0;
let lastEnv: PathEnv | null = null;

/** The environment of an event; `cwd` absent reads as `/`. */
export function pathEnv(cwd: string | undefined, home: string): PathEnv {
  const cwdText = typeof cwd === 'string' && cwd.length > 0 ? cwd : '/';
  const homeText = typeof home === 'string' && home.length > 0 ? home : '/';
  if (lastEnv !== null && lastEnv.cwd === cwdText && lastEnv.home === homeText) return lastEnv;
  lastEnv = envFor(cwdText, homeText);
  return lastEnv;
}

function envFor(cwdText: string, homeText: string): PathEnv {
  let byHome = envCache.get(cwdText);
  const cached = byHome?.get(homeText);
  if (cached !== undefined) return cached;
  const env = makeEnv(cwdText, homeText);
  if (envCount >= 1024) {
    envCache.clear();
    envCount = 0;
    byHome = undefined;
  }
  if (byHome === undefined) envCache.set(cwdText, (byHome = new Map()));
  byHome.set(homeText, env);
  envCount++;
  return env;
}

function makeEnv(cwdText: string, homeText: string): PathEnv {
  const windows = looksWindowsAbsolute(cwdText);
  const cwdSegments = directorySegments(cwdText);
  const homeSegments = directorySegments(homeText);
  return {
    cwd: cwdText,
    home: homeText,
    windows,
    cwdSegments,
    homeSegments,
    cwdFolded: foldReading(cwdSegments),
    homeFolded: foldReading(homeSegments),
    drive: windows && isDriveMarker(cwdSegments[0]) ? cwdSegments[0]! : null,
  };
}

function directorySegments(dir: string): string[] {
  if (looksWindowsAbsolute(dir)) return windowsWalk(dir, [], [], null).segments;
  return lexicalSegments(dir, []);
}

// ---------------------------------------------------------------------------------------------
// Readings

export interface PathReading {
  /** Every reading a deny or ask considers; the first `real` are the ones an allow must cover. */
  readonly all: readonly (readonly string[])[];
  readonly real: number;
  /** `all`, folded (`foldReading`), index for index. */
  readonly folded: readonly (readonly string[])[];
  /** What the path names cannot be known: deny and ask fire, allow never covers it. */
  readonly opaque: boolean;
}

const OPAQUE: PathReading = { all: [], real: 0, folded: [], opaque: true };

/** Reads a tool's path argument (see the file comment). Never throws. */
export function readToolPath(raw: string, env: PathEnv): PathReading {
  if (typeof raw !== 'string') return OPAQUE;
  // Most paths: plain ASCII without upper case, backslash, colon or NUL, under a directory that folds to itself.
  const clean = !SPECIAL_CHARS.test(raw);
  if (!clean && raw.includes('\u0000')) return OPAQUE;
  if (!env.windows) {
    const plain = clean || !WALK_CHARS.test(raw) ? plainPosix(raw, env) : null;
    if (plain !== null && !(plain[0] !== undefined && MAC_ROOTS.has(foldSegment(plain[0])))) {
      const all = [plain];
      if (clean && env.cwdFolded === env.cwdSegments && env.homeFolded === env.homeSegments) return { all, real: 1, folded: all, opaque: false };
      const folded = foldReading(plain);
      return { all, real: 1, folded: folded === plain ? all : [folded], opaque: false };
    }
  }
  const all: (readonly string[])[] = [];
  let real: number;
  let opaque = false;
  if (env.windows) {
    const w = windowsWalk(raw, env.cwdSegments, env.homeSegments, env.drive);
    if (w.opaque) return OPAQUE;
    all.push(w.segments, ...w.extras);
    real = 1;
    // `/c/Users/x`, as MSYS and Git Bash spell `C:\Users\x`
    const msys = /^[\\/]([A-Za-z])([\\/]|$)/u.exec(raw);
    if (msys !== null) all.push(windowsWalk(`${msys[1]!}:\\${raw.slice(2)}`, env.cwdSegments, env.homeSegments, env.drive).segments);
  } else {
    const p = posixWalk(raw, env);
    opaque = p.opaque;
    all.push(p.segments);
    real = 1;
    if (p.lexical !== null) {
      // Through another process's root: the path as written is a reading an allow must cover too.
      all.push(p.lexical);
      if (p.foreign) real = 2;
    }
    const windowsLike = /^[A-Za-z]:/u.test(raw) || raw.includes('\\');
    if (windowsLike || p.winDiffers) {
      const w = windowsWalk(raw, env.cwdSegments, env.homeSegments, null);
      if (w.opaque) opaque = true;
      else {
        if (windowsLike) {
          // Only a real reading goes before the extras: keep `real` a prefix of `all`.
          all.splice(real, 0, w.segments);
          real++;
        } else {
          all.push(w.segments);
        }
        all.push(...w.extras);
      }
    }
    for (let i = 0, n = all.length; i < n; i++) {
      let alias = macAlias(all[i]!);
      for (let k = 0; alias !== null && k < 3; k++) {
        all.push(alias);
        alias = macAlias(alias);
      }
    }
  }
  if (opaque) return OPAQUE;
  return { all, real, folded: all.map(foldReading), opaque: false };
}

/**
 * The POSIX reading of a path that needs nothing more than `.` and `..` resolved (its caller has
 * seen no backslash or colon): no segment `proc` or `dev`, none (but `.` and `..`) ending in a dot
 * or a space. Null for any other path.
 */
function plainPosix(raw: string, env: PathEnv): string[] | null {
  let base: readonly string[];
  let start: number;
  if (raw === '~' || raw.startsWith('~/')) {
    base = env.homeSegments;
    start = 1;
  } else {
    base = raw.startsWith('/') ? [] : env.cwdSegments;
    start = 0;
  }
  const first = base[0];
  if (first === 'proc' || first === 'dev') return null;
  const out = base.length === 0 ? [] : base.slice();
  while (start <= raw.length) {
    let end = raw.indexOf('/', start);
    if (end < 0) end = raw.length;
    const len = end - start;
    if (len > 0) {
      const last = raw.charCodeAt(end - 1);
      if (len === 1 && last === 0x2e) {
        // `.`
      } else if (len === 2 && last === 0x2e && raw.charCodeAt(start) === 0x2e) {
        out.pop();
      } else if (last === 0x2e || last === 0x20 || (len === 4 && raw.startsWith('proc', start)) || (len === 3 && raw.startsWith('dev', start))) {
        return null;
      } else {
        out.push(raw.slice(start, end));
      }
    }
    start = end + 1;
  }
  return out;
}

const MAC_ROOTS = new Set(['private', 'system', 'volumes']);
const MAC_PRIVATE = new Set(['etc', 'var', 'tmp']);

/**
 * The same place under another macOS name, for a deny: `/private/etc/x` is `/etc/x`, the data
 * volume's `/System/Volumes/Data/Users/x` is `/Users/x`, and `/Volumes/<name>/x` may be the boot
 * volume's `/x`. Null when the reading has no such name.
 */
function macAlias(segments: readonly string[]): string[] | null {
  const first = segments[0] === undefined ? '' : foldSegment(segments[0]);
  if (first === 'private' && segments.length >= 2 && MAC_PRIVATE.has(foldSegment(segments[1]!))) return segments.slice(1);
  if (first === 'system' && segments.length >= 3 && foldSegment(segments[1]!) === 'volumes' && foldSegment(segments[2]!) === 'data') return segments.slice(3);
  if (first === 'volumes' && segments.length >= 2) return segments.slice(2);
  return null;
}

// Over UTF-16 code units (no `u` flag, which makes the test slower).
const WALK_CHARS = /[\\:]/;
const SPECIAL_CHARS = /[\u0000\\:A-Z\u0080-\uffff]/;

/** `.`/`..` resolved (never above the root), empty segments dropped, appended to `out`. */
export function lexicalSegments(path: string, out: string[]): string[] {
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i < path.length && path.charCodeAt(i) !== 0x2f) continue;
    const len = i - start;
    if (len === 0 || (len === 1 && path.charCodeAt(start) === 0x2e)) {
      // empty or `.`
    } else if (len === 2 && path.charCodeAt(start) === 0x2e && path.charCodeAt(start + 1) === 0x2e) {
      out.pop();
    } else {
      out.push(path.slice(start, i));
    }
    start = i + 1;
  }
  return out;
}

interface PosixWalk {
  segments: string[];
  /** The lexical reading when a magic link was followed, else null. */
  lexical: string[] | null;
  /** A link into another process (`/proc/<pid>/root`): the lexical reading is real too. */
  foreign: boolean;
  opaque: boolean;
  /** A segment Windows would read differently (a `:`, a trailing dot or space). */
  winDiffers: boolean;
}

const DIGITS = /^[0-9]+$/u;

function isProcessName(segment: string): boolean {
  return segment === 'self' || segment === 'thread-self' || DIGITS.test(segment);
}

/**
 * The POSIX reading, following `/proc/<p>/root`, `/proc/<p>/cwd` (and their `task/<tid>/` forms)
 * as the kernel does, at the moment they are walked through (so a later `..` applies to the target).
 */
function posixWalk(raw: string, env: PathEnv): PosixWalk {
  let base: readonly string[];
  let rest: string;
  if (raw === '~' || raw.startsWith('~/')) {
    base = env.homeSegments;
    rest = raw.slice(1);
  } else if (raw.startsWith('/')) {
    base = [];
    rest = raw;
  } else {
    base = env.cwdSegments;
    rest = raw;
  }
  const walk: PosixWalk = { segments: [...base], lexical: null, foreign: false, opaque: false, winDiffers: false };
  let start = 0;
  for (let i = 0; i <= rest.length; i++) {
    if (i < rest.length && rest.charCodeAt(i) !== 0x2f) continue;
    const piece = rest.slice(start, i);
    start = i + 1;
    if (piece.length === 0 || piece === '.') continue;
    if (piece === '..') {
      walk.segments.pop();
      continue;
    }
    const last = piece.charCodeAt(piece.length - 1);
    if (last === 0x2e || last === 0x20 || piece.includes(':')) walk.winDiffers = true;
    walk.segments.push(piece);
    followLink(walk, env);
    if (walk.opaque) return walk;
  }
  if (walk.lexical !== null) walk.lexical = lexicalSegments(rest, [...base]);
  return walk;
}

/** After a segment is pushed: follow a magic link the segments now name, or mark the walk opaque. */
function followLink(walk: PosixWalk, env: PathEnv): void {
  const s = walk.segments;
  if (s[0] === 'dev') {
    if (s.length === 3 && s[1] === 'fd' && !isStandardStream(s[2]!)) walk.opaque = true;
    return;
  }
  if (s[0] !== 'proc' || s.length < 3 || !isProcessName(s[1]!)) return;
  // `/proc/<p>/<what>` or `/proc/<p>/task/<tid>/<what>`
  let at = 2;
  if (s[2] === 'task') {
    if (s.length < 5 || !DIGITS.test(s[3]!)) return;
    at = 4;
  }
  if (s.length !== at + 1 && !(s.length === at + 2 && (s[at] === 'fd' || s[at] === 'map_files'))) return;
  const what = s[at]!;
  const self = s[1] === 'self' || s[1] === 'thread-self';
  if (what === 'root' && s.length === at + 1) {
    walk.lexical = [];
    if (!self) walk.foreign = true;
    s.length = 0;
  } else if (what === 'cwd' && s.length === at + 1) {
    if (!self) {
      walk.opaque = true;
      return;
    }
    walk.lexical = [];
    s.length = 0;
    s.push(...env.cwdSegments);
  } else if (what === 'exe' && s.length === at + 1) {
    walk.opaque = true;
  } else if (what === 'map_files' && s.length === at + 2) {
    walk.opaque = true;
  } else if (what === 'fd' && s.length === at + 2 && !(self && isStandardStream(s[at + 1]!))) {
    walk.opaque = true;
  }
}

/** Descriptors 0 to 2 are the standard streams (`/dev/stdin` and its kin), not files a policy names. */
function isStandardStream(fd: string): boolean {
  return fd === '0' || fd === '1' || fd === '2';
}

interface WindowsWalk {
  segments: string[];
  /** Further readings a deny considers (a share read as a directory, a WSL share as its distribution's root). */
  extras: string[][];
  opaque: boolean;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '.', '?', '[::1]']);

/**
 * The Windows reading. `cwd`, `home` and `drive` are the bases of relative, `~` and `\x` paths;
 * for resolving the working directory itself they are empty.
 */
function windowsWalk(raw: string, cwd: readonly string[], home: readonly string[], drive: string | null): WindowsWalk {
  const out: WindowsWalk = { segments: [], extras: [], opaque: false };
  let base: string[];
  let rest: string;
  const device = /^[\\/]{2}[?.][\\/]/u.exec(raw);
  if (device !== null) {
    const inner = raw.slice(4);
    if (/^[A-Za-z]:([\\/]|$)/u.test(inner)) {
      base = [`//${inner[0]!.toUpperCase()}:`];
      rest = inner.slice(2);
    } else if (/^unc[\\/]/iu.test(inner)) {
      return uncWalk(inner.slice(4), out);
    } else {
      out.opaque = true;
      return out;
    }
  } else if (/^[\\/]{2}[^\\/]/u.test(raw)) {
    return uncWalk(raw.slice(2), out);
  } else if (/^[A-Za-z]:/u.test(raw)) {
    const marker = `//${raw[0]!.toUpperCase()}:`;
    const absolute = raw[2] === '\\' || raw[2] === '/';
    // `C:x` is relative to drive C's own working directory: the event's, when it is on C.
    base = !absolute && drive === marker ? [...cwd] : [marker];
    rest = raw.slice(2);
  } else if (raw === '~' || raw.startsWith('~/') || raw.startsWith('~\\')) {
    base = [...home];
    rest = raw.slice(1);
  } else if (raw.startsWith('\\') || raw.startsWith('/')) {
    base = drive !== null ? [drive] : [];
    rest = raw;
  } else {
    base = [...cwd];
    rest = raw;
  }
  out.segments = windowsSegments(rest, base);
  return out;
}

/** `server\share\rest` (after the leading separators) of a UNC path. */
function uncWalk(text: string, out: WindowsWalk): WindowsWalk {
  const parts = text.split(/[\\/]/u);
  const server = foldSegment(parts[0] ?? '');
  const share = foldSegment(parts[1] ?? '');
  const rest = parts.slice(2).join('/');
  const admin = /^[a-z]\$$/u.exec(share);
  let root: string;
  if (admin !== null && LOCAL_HOSTS.has(server)) root = `//${share[0]!.toUpperCase()}:`;
  else root = share.length > 0 ? `//${server}/${share}` : `//${server}`;
  out.segments = windowsSegments(rest, [root]);
  if (admin !== null && !LOCAL_HOSTS.has(server)) out.extras.push(windowsSegments(rest, [`//${share[0]!.toUpperCase()}:`]));
  else if (server === 'wsl$' || server === 'wsl.localhost') out.extras.push(windowsSegments(rest, []));
  else if (share.length > 0 && admin === null) out.extras.push(windowsSegments(rest, [share], 1));
  return out;
}

/**
 * Walks `rest` on `base` the Win32 way: both separators, streams and trailing dots and spaces
 * dropped; `..` never climbs below `floor` segments (a root marker is always kept).
 */
function windowsSegments(rest: string, base: string[], floor = isRootMarker(base[0]) ? 1 : 0): string[] {
  for (const raw of rest.split(/[\\/]/u)) {
    const piece = cleanWindowsSegment(raw);
    if (piece.length === 0 || piece === '.') continue;
    if (piece === '..') {
      if (base.length > floor) base.pop();
      continue;
    }
    base.push(piece);
  }
  return base;
}

function cleanWindowsSegment(raw: string): string {
  const colon = raw.indexOf(':');
  let piece = colon >= 0 ? raw.slice(0, colon) : raw;
  let end = piece.length;
  while (end > 0 && piece.charCodeAt(end - 1) === 0x20) end--;
  piece = piece.slice(0, end);
  if (piece === '.' || piece === '..') return piece;
  while (end > 0 && (piece.charCodeAt(end - 1) === 0x2e || piece.charCodeAt(end - 1) === 0x20)) end--;
  return piece.slice(0, end);
}
