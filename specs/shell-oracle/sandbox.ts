/**
 * The real-shell sandbox: a throw-away chroot in which a command line really runs, reporting every
 * external program that ran, with its argv.
 *
 * Safety: every run happens in new mount, pid and network namespaces (`unshare -m -n -p -f`), inside
 * a chroot whose root is bind-mounted read-only; only `/tmp`, `/home`, `/root` and `/repo` (fresh
 * tmpfs per run) and the run's log folder are writable, and all of them vanish with the run's namespaces.
 * `/proc` is the run's own pid namespace, mounted read-only (process substitution needs /dev/fd);
 * the only devices are null, zero, full, random and urandom. Nothing a command does can reach the
 * host's files or the network.
 *
 * What is inside:
 * - the real shells bash, dash (also as `sh`) and zsh when the host has it, with their libraries;
 * - the real binaries of the wrappers that run other programs (`REAL_WRAPPERS`, those the host has):
 *   they really run the wrapped program, so `nice rm x` logs the inner `rm x`;
 * - shells the host does not have (ksh, mksh, ash, csh, fish, ...) as copies of bash or dash that
 *   run their `-c` script: an approximation, so that what such a script runs is seen;
 * - every other program name as a logging stand-in at /bin, /usr/bin and /usr/local/bin: it records
 *   its argv and exits 0, never running its arguments, so `sudo rm -rf /` logs `sudo rm -rf /` and
 *   nothing else;
 * - bash's `command_not_found_handle` (exported to nested bash processes) and zsh's
 *   `command_not_found_handler` log a program that is not there the same way and return 0.
 *
 * Real shells, real wrappers and emulated shells are not logged themselves: what they run is.
 * The logged program is the path the stand-in was run by (`/usr/bin/rm`), or the name as written
 * when nothing was found. A run ends when every process of its pid namespace has ended, or at the
 * timeout, when the namespace is killed.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync,
  statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Wrappers that run another program; each the host has is copied in as the real binary. */
export const REAL_WRAPPERS: readonly string[] = [
  'env', 'nice', 'nohup', 'timeout', 'xargs', 'find', 'setsid', 'flock', 'stdbuf', 'ionice', 'chrt', 'taskset',
  'time', 'busybox',
];

/** Shells run for real when the host has them. */
export const REAL_SHELLS: readonly string[] = ['bash', 'dash', 'zsh'];

/** Shells the host may not have, emulated by a real one so that their `-c` script runs. */
const EMULATED_SHELLS: Readonly<Record<string, 'bash' | 'dash'>> = {
  sh: 'dash', ash: 'dash', rbash: 'bash', ksh: 'bash', ksh93: 'bash', mksh: 'bash', pdksh: 'bash', oksh: 'bash',
  loksh: 'bash', posh: 'dash', yash: 'bash', csh: 'bash', tcsh: 'bash', fish: 'bash', elvish: 'bash',
};

/** Programs that always get a stand-in, besides the names a test asks for. */
export const COMMON_PROGRAMS: readonly string[] = [
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'dd', 'mkfs', 'shred', 'chmod', 'chown', 'touch', 'mkdir', 'cat', 'tac', 'head',
  'tail', 'less', 'more', 'ls', 'echo', 'printf', 'true', 'false', 'test', 'yes', 'sleep', 'kill', 'grep', 'egrep',
  'rg', 'sed', 'awk', 'gawk', 'perl', 'python', 'python3', 'node', 'ruby', 'php', 'lua', 'tee', 'sort', 'uniq', 'wc',
  'cut', 'tr', 'diff', 'patch', 'tar', 'gzip', 'zip', 'unzip', 'rsync', 'scp', 'ssh', 'curl', 'wget', 'nc', 'git',
  'npm', 'npx', 'yarn', 'pnpm', 'make', 'cargo', 'go', 'pip', 'docker', 'kubectl', 'sudo', 'doas', 'su', 'runuser',
  'watch', 'script', 'strace', 'ltrace', 'chroot', 'unshare', 'nsenter', 'systemd-run', 'numactl', 'parallel',
  'sg', 'vim', 'vi', 'nvim', 'emacs', 'nano', 'open', 'xdg-open', 'id', 'whoami', 'date', 'pwd', 'base64', 'xxd',
  'jq', 'mktemp', 'basename', 'dirname', 'readlink', 'realpath', 'stat', 'file', 'which', 'type', 'nl', 'seq',
];

const STANDIN_DIRS = ['/bin', '/usr/bin', '/usr/local/bin'];
const HOST_BIN_DIRS = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
/** A word that can name a stand-in. */
const PROGRAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+@%:-]{0,99}$/;

export interface RunResult {
  /** The argv of every external program that ran, in no particular order. */
  ran: string[][];
  /** The shell's exit status, when it finished. */
  status: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface SandboxOptions {
  /** Program names to give stand-ins (besides COMMON_PROGRAMS); names that cannot be files are skipped. */
  programs?: Iterable<string>;
  /** Milliseconds before a run is killed (default 5000). */
  timeoutMs?: number;
}

export interface Sandbox {
  readonly root: string;
  /** The shells that really run here (`bash`, `dash`, `zsh` when the host has it). */
  readonly shells: ReadonlySet<string>;
  /** Runs `command` as `SHELL -c command` with cwd /repo and HOME /home/u. */
  run(command: string, shell?: string): Promise<RunResult>;
  close(): void;
}

/** Why the sandbox cannot run here, with how to enable it; null when it can. */
export function sandboxProblem(): string | null {
  if (process.platform !== 'linux') return 'the shell oracle needs Linux (chroot and namespaces)';
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return 'the shell oracle needs root: it runs each command in a chroot inside new mount, pid and network namespaces; ' +
      'run the tests as root (in a container: --privileged, or CAP_SYS_ADMIN and CAP_SYS_CHROOT with unshare allowed)';
  }
  for (const tool of ['unshare', 'chroot', 'mount', 'sleep', 'ldd']) {
    if (hostBinary(tool) === null) return `the shell oracle needs \`${tool}\` on the host (util-linux, coreutils, libc-bin)`;
  }
  for (const shell of ['bash', 'dash']) {
    if (hostBinary(shell) === null) return `the shell oracle needs \`${shell}\` on the host`;
  }
  return null;
}

/** Whether the host has a shell the sandbox would run for real (`zsh` may be missing). */
export function hostHasShell(name: string): boolean {
  return REAL_SHELLS.includes(name) && hostBinary(name) !== null;
}

function hostBinary(name: string): string | null {
  for (const dir of HOST_BIN_DIRS) {
    const path = join(dir, name);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** The shared libraries a host binary needs, from `ldd` (none for a static binary). */
function libraries(binary: string): string[] {
  let out: string;
  try {
    out = execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return [];
  }
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
    if (m) libs.push(m[1]!);
  }
  return libs;
}

/** Copies a host file to the same path under root (following links), with its libraries. */
function copyIn(root: string, hostPath: string, at: string = hostPath): void {
  const target = join(root, at);
  if (existsSync(target)) return;
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(hostPath, target);
  chmodSync(target, statSync(hostPath).mode & 0o777);
  for (const lib of libraries(hostPath)) copyIn(root, lib);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

// Each run: this host-side stage (in the new namespaces, before the chroot) makes the root
// read-only and mounts the run's writable folders, then the driver runs the command.
const HOST_STAGE = [
  'set -e',
  'R=$1; L=$2; shift 2',
  'mount --bind "$R" "$R"',
  'mount -o remount,ro,bind "$R"',
  'for d in null zero full random urandom; do mount --bind "/dev/$d" "$R/dev/$d"; done',
  'mount -t proc -o ro,nosuid,nodev,noexec oracle "$R/proc"',
  'for d in tmp home repo root; do mount -t tmpfs -o size=32m,mode=0755 oracle "$R/$d"; done',
  'chmod 1777 "$R/tmp"',
  'mkdir "$R/home/u"',
  'mount --bind "$L" "$R/oracle/log"',
  'exec chroot "$R" /usr/bin/bash /oracle/driver "$@"',
].join('\n');

const LOG_LINE = 'set -C; n=0; until { printf \'%s\\0\' "$@" > "/oracle/log/$$.$n.$RANDOM"; } 2>/dev/null; do n=$((n + 1)); if [ "$n" -gt 1000 ]; then break; fi; done';

const DRIVER = `# Runs one command line: $1 is the shell, $2 the command. This driver is pid 1 of the run's pid
# namespace: it waits until every other process of the run has ended (the run ends with it).
export PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/u USER=root LOGNAME=root SHELL=/usr/bin/bash LANG=C.UTF-8 TERM=dumb
command_not_found_handle() { ${LOG_LINE}; return 0; }
export -f command_not_found_handle
cd /repo || exit 120
"$1" -c "$2" </dev/null
status=$?
while :; do
  others=0
  for p in /proc/[0-9]*; do
    [ "\${p#/proc/}" = 1 ] && continue
    stat=
    { read -r stat < "$p/stat"; } 2>/dev/null || continue
    stat=\${stat##*) }
    [ "\${stat%% *}" = Z ] && continue
    others=1
    break
  done
  [ "$others" = 0 ] && break
  /oracle/bin/sleep 0.01
done
printf '%s' "$status" > /oracle/log/.status
`;

const STANDIN = `#!/usr/bin/bash -p
# Stand-in: records its argv (the path it was run by, then its arguments) and exits 0.
set -C
n=0
until { printf '%s\\0' "$0" "$@" > "/oracle/log/$$.$n.$RANDOM"; } 2>/dev/null; do
  n=$((n + 1))
  if [ "$n" -gt 1000 ]; then exit 0; fi
done
exit 0
`;

const ZSHENV = `# The sandbox's zsh: a program that is not there is logged like a stand-in.
command_not_found_handler() { emulate -L sh; ${LOG_LINE}; return 0; }
`;

/** Builds the chroot. Throws, with how to enable it, when the sandbox cannot run here. */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const problem = sandboxProblem();
  if (problem !== null) throw new Error(problem);
  const timeoutMs = options.timeoutMs ?? 5000;
  const base = mkdtempSync(join(tmpdir(), 'dshpolicy-oracle-'));
  const root = join(base, 'root');
  const logs = join(base, 'logs');
  mkdirSync(logs);
  const shells = new Set<string>();
  const real = new Set<string>();
  try {
    for (const dir of ['bin', 'usr/bin', 'usr/local/bin', 'etc/zsh', 'dev', 'tmp', 'home', 'repo', 'root', 'proc', 'oracle/bin', 'oracle/log']) {
      mkdirSync(join(root, dir), { recursive: true });
    }
    for (const d of ['null', 'zero', 'full', 'random', 'urandom']) writeFileSync(join(root, 'dev', d), '');
    // Process substitution (`<( )`) needs /dev/fd.
    symlinkSync('/proc/self/fd', join(root, 'dev/fd'));
    for (const [i, name] of ['stdin', 'stdout', 'stderr'].entries()) symlinkSync(`/proc/self/fd/${i}`, join(root, 'dev', name));
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/usr/bin/bash\nu:x:1000:1000:u:/home/u:/usr/bin/bash\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nwheel:x:10:root\nu:x:1000:\n');
    writeFileSync(join(root, 'etc/zsh/zshenv'), ZSHENV);

    // The real programs: at /usr/bin and /bin, so `env -i`'s default path finds them too.
    const install = (name: string, hostPath: string): void => {
      copyIn(root, hostPath, `/usr/bin/${name}`);
      linkSync(join(root, 'usr/bin', name), join(root, 'bin', name));
      real.add(name);
    };
    for (const shell of REAL_SHELLS) {
      const path = hostBinary(shell);
      if (path === null) continue;
      install(shell, path);
      shells.add(shell);
    }
    const zsh = hostBinary('zsh');
    if (zsh !== null) {
      // zsh loads its modules from the folder it was built with.
      const moduleDirs = ['/usr/lib/x86_64-linux-gnu/zsh', '/usr/lib/aarch64-linux-gnu/zsh', '/usr/lib/zsh', '/usr/lib64/zsh'];
      for (const dir of moduleDirs) if (existsSync(dir)) for (const f of filesUnder(dir)) copyIn(root, f);
    }
    for (const name of REAL_WRAPPERS) {
      const path = hostBinary(name);
      if (path !== null) install(name, path);
    }
    if (existsSync('/usr/libexec/coreutils/libstdbuf.so')) copyIn(root, '/usr/libexec/coreutils/libstdbuf.so');
    copyIn(root, hostBinary('sleep')!, '/oracle/bin/sleep');
    for (const [name, by] of Object.entries(EMULATED_SHELLS)) {
      if (real.has(name)) continue;
      linkSync(join(root, 'usr/bin', by), join(root, 'usr/bin', name));
      linkSync(join(root, 'usr/bin', by), join(root, 'bin', name));
      real.add(name);
    }

    writeFileSync(join(root, 'oracle/driver'), DRIVER);
    writeFileSync(join(root, 'oracle/standin'), STANDIN, { mode: 0o755 });
    const names = new Set([...COMMON_PROGRAMS, ...(options.programs ?? [])]);
    for (const name of names) {
      if (!PROGRAM_NAME.test(name) || real.has(name)) continue;
      for (const dir of STANDIN_DIRS) linkSync(join(root, 'oracle/standin'), join(root, dir, name));
    }
  } catch (e) {
    rmSync(base, { recursive: true, force: true });
    throw e;
  }

  let counter = 0;
  const sandbox: Sandbox = {
    root,
    shells,
    async run(command: string, shell = 'bash'): Promise<RunResult> {
      if (!shells.has(shell)) throw new Error(`the sandbox has no \`${shell}\``);
      if (Buffer.byteLength(command) > 100_000) throw new Error('a command run in the sandbox must be under 100 kB');
      const log = join(logs, String(counter++));
      mkdirSync(log);
      try {
        const result = await runStaged(root, log, `/usr/bin/${shell}`, command, timeoutMs);
        return { ...result, ran: readLog(log) };
      } finally {
        rmSync(log, { recursive: true, force: true });
      }
    },
    close(): void {
      rmSync(base, { recursive: true, force: true });
    },
  };
  // One run proves the namespaces and the chroot work here, so a broken setup fails loudly.
  const probe = await sandbox.run('true');
  if (probe.status !== 0) {
    sandbox.close();
    throw new Error(`the shell oracle's sandbox does not run commands here: ${probe.stderr.trim() || 'no output'}`);
  }
  return sandbox;
}

function readLog(dir: string): string[][] {
  const ran: string[][] = [];
  for (const f of readdirSync(dir).sort()) {
    if (f.startsWith('.')) continue;
    const argv = readFileSync(join(dir, f), 'utf8').split('\0');
    argv.pop(); // the record ends in a NUL
    if (argv.length > 0) ran.push(argv);
  }
  return ran;
}

interface Staged {
  status: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function runStaged(root: string, log: string, shell: string, command: string, timeoutMs: number): Promise<Staged> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-m', '-n', '-p', '-f', '--kill-child', '/bin/sh', '-c', HOST_STAGE, 'oracle', root, log, shell, command], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 65536) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 65536) stderr += chunk;
    });
    // Killing unshare kills pid 1 of the run (--kill-child), and with it every process of the run.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', () => {
      clearTimeout(timer);
      let status: number | null = null;
      try {
        status = Number(readFileSync(join(log, '.status'), 'utf8'));
      } catch {
        if (!timedOut) {
          reject(new Error(`the shell oracle's sandbox did not run the command: ${stderr.trim() || 'no output'}`));
          return;
        }
      }
      resolve({ status, timedOut, stdout, stderr });
    });
  });
}
