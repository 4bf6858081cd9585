/** Which proxy a request takes: environment variables as curl reads them, NO_PROXY, loopback always direct. */
import { describe, expect, it } from 'vitest';
import { proxyFor, proxySettingsFromEnv } from '../../../src/core/endpoint/proxy';

describe('proxy settings', () => {
  it('reads HTTPS_PROXY / HTTP_PROXY / NO_PROXY in either case, ALL_PROXY as the fallback', () => {
    expect(proxySettingsFromEnv({ https_proxy: 'http://p:3128', HTTP_PROXY: 'http://q:8080', NO_PROXY: '.corp' })).toEqual({ httpsProxy: 'http://p:3128', httpProxy: 'http://q:8080', noProxy: '.corp' });
    expect(proxySettingsFromEnv({ ALL_PROXY: 'http://a:1' })).toEqual({ httpsProxy: 'http://a:1', httpProxy: 'http://a:1' });
    expect(proxySettingsFromEnv({})).toEqual({});
  });

  it('chooses by the endpoint scheme; a bare host:port is an http proxy', () => {
    const settings = { httpsProxy: 'proxy.corp:3128', httpProxy: 'http://other:8080' };
    expect(proxyFor(new URL('https://api.openai.com/v1'), settings)?.href).toBe('http://proxy.corp:3128/');
    expect(proxyFor(new URL('http://gpu-box:8000/v1'), settings)?.host).toBe('other:8080');
    expect(proxyFor(new URL('http://gpu-box:8000/v1'), { httpsProxy: 'http://p:1' })).toBeUndefined();
  });

  it('loopback is always direct: the simulator and local servers never go through a proxy', () => {
    const settings = { httpsProxy: 'http://p:1', httpProxy: 'http://p:1' };
    for (const url of ['http://127.0.0.1:4000/v1', 'http://localhost:11434/v1', 'http://[::1]:8000/v1', 'https://127.0.0.2/v1']) expect(proxyFor(new URL(url), settings), url).toBeUndefined();
  });

  it('NO_PROXY matches hosts, domains with or without a leading dot, ports and *', () => {
    const at = (noProxy: string, url: string) => proxyFor(new URL(url), { httpsProxy: 'http://p:1', noProxy });
    expect(at('example.com', 'https://api.example.com/v1')).toBeUndefined();
    expect(at('.example.com', 'https://example.com/v1')).toBeUndefined();
    expect(at('*.example.com', 'https://a.example.com/v1')).toBeUndefined();
    expect(at('example.com', 'https://notexample.com/v1')).toBeDefined();
    expect(at('a.test:8443', 'https://a.test:8443/v1')).toBeUndefined();
    expect(at('a.test:8443', 'https://a.test/v1')).toBeDefined();
    expect(at('other, *', 'https://anything.io/v1')).toBeUndefined();
  });

  it('refuses a proxy it cannot use with a clear message', () => {
    expect(() => proxyFor(new URL('https://x.io'), { httpsProxy: 'https://secure-proxy:443' })).toThrow(/Only http:\/\/ proxies/);
    expect(() => proxyFor(new URL('https://x.io'), { httpsProxy: 'http://[bad' })).toThrow(/not a URL/);
  });
});
