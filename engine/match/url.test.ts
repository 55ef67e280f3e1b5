import { describe, it, expect } from 'vitest';
import { checkGlob, compileDomainGlob, compileUrlGlob, hostOfValue } from './index.js';

const url = (glob: string, value: string): boolean => compileUrlGlob(glob).test(value);
const domain = (glob: string, value: string): boolean => compileDomainGlob(glob).test(value);

describe('url globs', () => {
  it('`*` matches within one path segment', () => {
    expect(url('https://github.com/acme/*', 'https://github.com/acme/repo')).toBe(true);
    expect(url('https://github.com/acme/*', 'https://github.com/acme/repo/issues')).toBe(false);
    expect(url('https://github.com/acme/*', 'https://github.com/other/repo')).toBe(false);
  });

  it('`**` crosses slashes', () => {
    expect(url('https://github.com/acme/**', 'https://github.com/acme/repo/blob/main/x.ts')).toBe(true);
    expect(url('https://github.com/acme/**', 'https://github.com/acme/')).toBe(true);
    expect(url('https://github.com/acme/**', 'https://github.com/acmecorp/x')).toBe(false);
  });

  it('scheme and host compare case-insensitively, the path does not', () => {
    expect(url('HTTPS://GitHub.COM/acme/*', 'https://github.com/acme/x')).toBe(true);
    expect(url('https://github.com/acme/*', 'HTTPS://GITHUB.COM/acme/x')).toBe(true);
    expect(url('https://github.com/acme/*', 'https://github.com/ACME/x')).toBe(false);
  });

  it('the scheme must match when given', () => {
    expect(url('https://example.com/**', 'http://example.com/')).toBe(false);
    expect(url('http*://example.com/**', 'http://example.com/')).toBe(true);
  });

  it('a glob without a scheme matches any scheme', () => {
    expect(url('github.com/acme/**', 'https://github.com/acme/x')).toBe(true);
    expect(url('github.com/acme/**', 'http://github.com/acme/x')).toBe(true);
    expect(url('github.com/acme/**', 'https://gitlab.com/acme/x')).toBe(false);
  });

  it('a wildcard subdomain matches any depth but not the bare domain', () => {
    const glob = '*://*.example.com/**';
    expect(url(glob, 'https://api.example.com/v1')).toBe(true);
    expect(url(glob, 'http://a.b.example.com/')).toBe(true);
    expect(url(glob, 'https://example.com/')).toBe(false);
    expect(url(glob, 'https://evil-example.com/')).toBe(false);
  });

  it('a glob without a path means the root path', () => {
    expect(url('https://example.com', 'https://example.com')).toBe(true);
    expect(url('https://example.com', 'https://example.com/')).toBe(true);
    expect(url('https://example.com', 'https://example.com/x')).toBe(false);
  });

  it('an unparseable value never matches', () => {
    expect(url('**', 'not a url')).toBe(false);
    expect(url('github.com/**', 'github.com/acme')).toBe(false);
  });

  it('a `://` inside the path or query is not a scheme', () => {
    expect(url('example.com/go?to=https://*', 'https://example.com/go?to=https://evil.com')).toBe(true);
    expect(url('example.com/go?to=https://*', 'https://other.com/go?to=https://evil.com')).toBe(false);
  });

  it('query and fragment are ignored unless the glob names them', () => {
    expect(url('https://x.com/search', 'https://x.com/search?q=1#top')).toBe(true);
    expect(url('https://x.com/search?q=*', 'https://x.com/search?q=cats')).toBe(true);
    expect(url('https://x.com/search?q=*', 'https://x.com/search?q=a/b')).toBe(false);
    expect(url('https://x.com/search?q=*', 'https://x.com/search')).toBe(false);
    expect(url('https://x.com/a#*', 'https://x.com/a#frag')).toBe(true);
  });

  it('user info cannot be used to dodge the host', () => {
    expect(url('https://evil.com/**', 'https://github.com@evil.com/x')).toBe(true);
    expect(url('https://github.com/**', 'https://github.com@evil.com/x')).toBe(false);
  });

  it('ports: any port when the glob has none, else the exact or default port', () => {
    expect(url('https://example.com/**', 'https://example.com:8443/x')).toBe(true);
    expect(url('https://example.com:8443/**', 'https://example.com:8443/x')).toBe(true);
    expect(url('https://example.com:8443/**', 'https://example.com/x')).toBe(false);
    expect(url('https://example.com:443/**', 'https://example.com/x')).toBe(true);
    expect(url('https://example.com:*/**', 'https://example.com:1/x')).toBe(true);
  });

  it('dot segments and encoded unreserved characters are normalised', () => {
    expect(url('https://x.com/admin/**', 'https://x.com/public/../admin/panel')).toBe(true);
    expect(url('https://x.com/admin/**', 'https://x.com/%61dmin/panel')).toBe(true);
    expect(url('https://x.com/admin/*', 'https://x.com/admin%2Fpanel/x')).toBe(false);
  });

  it('a trailing dot on the host is ignored', () => {
    expect(url('https://example.com/**', 'https://example.com./x')).toBe(true);
  });

  it('escaped stars are literal', () => {
    expect(url('https://x.com/\\*', 'https://x.com/*')).toBe(true);
    expect(url('https://x.com/\\*', 'https://x.com/a')).toBe(false);
  });

  it('checkGlob url: accepts ordinary globs', () => {
    for (const glob of ['https://github.com/acme/*', '*://*.example.com/**', 'github.com/acme/**', 'http://[::1]:8080/x']) {
      expect(checkGlob(glob, 'url')).toBeNull();
    }
  });

  it('checkGlob url: errors with offsets', () => {
    expect(checkGlob('', 'url')).toEqual({ message: 'empty url glob', offset: 0 });
    expect(checkGlob('https://a .com', 'url')?.offset).toBe(9);
    expect(checkGlob('://x.com', 'url')?.message).toMatch(/^missing scheme/u);
    expect(checkGlob('ht_tp://x.com', 'url')?.offset).toBe(2);
    expect(checkGlob('https:///path', 'url')).toMatchObject({ offset: 8 });
    expect(checkGlob('https:///path', 'url')?.message).toMatch(/^missing host/u);
    expect(checkGlob('https://u@x.com/', 'url')?.offset).toBe(8);
    expect(checkGlob('https://x.com:80a/', 'url')?.offset).toBe(14);
    expect(checkGlob('https://exämple.com/', 'url')?.message).toMatch(/punycode/u);
    expect(checkGlob('https://x.com/a\\', 'url')?.offset).toBe(15);
  });
});

describe('domain globs', () => {
  it('an exact domain matches only itself', () => {
    expect(domain('example.com', 'example.com')).toBe(true);
    expect(domain('example.com', 'www.example.com')).toBe(false);
    expect(domain('example.com', 'example.com.evil.net')).toBe(false);
    expect(domain('example.com', 'notexample.com')).toBe(false);
  });

  it('is case-insensitive', () => {
    expect(domain('Example.COM', 'EXAMPLE.com')).toBe(true);
  });

  it('`*.` matches subdomains at any depth but not the domain itself', () => {
    const m = compileDomainGlob('*.example.com');
    expect(m.test('a.example.com')).toBe(true);
    expect(m.test('a.b.example.com')).toBe(true);
    expect(m.test('example.com')).toBe(false);
    expect(m.test('badexample.com')).toBe(false);
    expect(m.test('.example.com')).toBe(false);
  });

  it('`*` matches any host', () => {
    expect(domain('*', 'anything.org')).toBe(true);
    expect(domain('*', '')).toBe(false);
  });

  it('accepts whole URLs and extracts the host', () => {
    expect(domain('github.com', 'https://github.com/acme/x')).toBe(true);
    expect(domain('github.com', 'https://user@github.com:8443/x')).toBe(true);
    expect(domain('github.com', 'https://github.com@evil.com/')).toBe(false);
    expect(domain('github.com', 'https://[bad')).toBe(false);
    expect(domain('example.com', 'example.com/next?u=https://other.org')).toBe(true);
  });

  it('ignores a port and a trailing dot', () => {
    expect(domain('example.com', 'example.com:8080')).toBe(true);
    expect(domain('example.com', 'example.com.')).toBe(true);
    expect(domain('*.example.com', 'api.example.com.:443')).toBe(true);
    expect(domain('example.com.', 'example.com')).toBe(true);
  });

  it('hostOfValue normalises hosts', () => {
    expect(hostOfValue('HTTP://WWW.Example.COM./x')).toBe('www.example.com');
    expect(hostOfValue('example.com/path?q')).toBe('example.com');
    expect(hostOfValue('file:///etc/passwd')).toBeNull();
  });

  it('checkGlob domain: accepts valid globs', () => {
    for (const glob of ['example.com', '*.example.com', '*', 'a-b.c0.io', 'Example.COM', 'example.com.']) {
      expect(checkGlob(glob, 'domain')).toBeNull();
    }
  });

  it('checkGlob domain: errors with offsets', () => {
    expect(checkGlob('', 'domain')).toEqual({ message: 'empty domain glob', offset: 0 });
    expect(checkGlob('a..com', 'domain')).toMatchObject({ offset: 2 });
    expect(checkGlob('a..com', 'domain')?.message).toMatch(/^empty label/u);
    expect(checkGlob('.com', 'domain')?.offset).toBe(0);
    expect(checkGlob('www.*.com', 'domain')?.offset).toBe(4);
    expect(checkGlob('*example.com', 'domain')?.offset).toBe(0);
    expect(checkGlob('ex*.com', 'domain')?.offset).toBe(2);
    expect(checkGlob('exa_mple.com', 'domain')?.offset).toBe(3);
    expect(checkGlob('https://x.com', 'domain')?.offset).toBe(5);
  });
});
