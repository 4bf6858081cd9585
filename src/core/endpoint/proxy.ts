/**
 * Which HTTP proxy a request goes through: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case, as
 * curl reads them), or VS Code's `http.proxy` / `http.noProxy` passed in by the extension. Loopback
 * is always direct, so the bundled simulator and local servers never go through a proxy.
 */

export interface ProxySettings {
  /** For https:// endpoints. */
  httpsProxy?: string;
  /** For http:// endpoints. */
  httpProxy?: string;
  /** Comma-separated hosts or domains (`.example.com` or `example.com` also cover subdomains), `*` for all. */
  noProxy?: string;
}

export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const read = (name: string): string | undefined => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;
  const all = read('all_proxy');
  const httpsProxy = read('https_proxy') ?? all;
  const httpProxy = read('http_proxy') ?? all;
  const noProxy = read('no_proxy');
  return { ...(httpsProxy ? { httpsProxy } : {}), ...(httpProxy ? { httpProxy } : {}), ...(noProxy ? { noProxy } : {}) };
}

/** A URL's host (an IPv6 address without its brackets) and port (the scheme's default when absent): what a socket connects to. */
export function addressOf(url: URL): { host: string; port: number } {
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/** The proxy for `target`, or undefined to connect directly. Throws on a proxy URL that cannot be used. */
export function proxyFor(target: URL, settings: ProxySettings): URL | undefined {
  const configured = target.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!configured) return undefined;
  const { host, port } = addressOf(target);
  if (LOOPBACK.test(host) || bypassed(host.toLowerCase(), String(port), settings.noProxy)) return undefined;
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(configured) ? configured : `http://${configured}`);
  } catch {
    throw new Error(`The proxy setting ${JSON.stringify(withoutPassword(configured))} is not a URL.`);
  }
  if (proxy.protocol !== 'http:') throw new Error(`Only http:// proxies are supported, not ${proxy.protocol}// (${proxy.host}).`);
  try {
    decodeURIComponent(proxy.username);
    decodeURIComponent(proxy.password);
  } catch {
    throw new Error(`The proxy URL ${withoutPassword(configured)} has a user name or password that is not valid percent-encoding: write a literal % as %25 (e.g. http://user:50%25off@host:3128).`);
  }
  return proxy;
}

/** The proxy's user name and password for Basic authentication (proxyFor has checked they decode). */
export function proxyCredentials(proxy: URL): { user: string; password: string } | undefined {
  if (!proxy.username) return undefined;
  return { user: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) };
}

/** A URL or setting as it may be shown: the password of any `scheme://user:password@` replaced. */
export function withoutPassword(text: string): string {
  return text.replace(/(\/\/[^:/@\s]*):[^/@\s]*@/g, '$1:***@');
}

function bypassed(host: string, port: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const [name, entryPort] = entry.split(/:(?=\d+$)/);
    if (entryPort && entryPort !== port) continue;
    const domain = name!.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}
