/**
 * API keys in SecretStorage, each bound to the origin it was entered for. If settings later point the
 * endpoint elsewhere (a workspace setting can), the key is not sent until the user confirms the new origin.
 */
import type * as vscode from 'vscode';
import type { EndpointConfig } from '../../core/endpoint/types';

/** SecretStorage keys: one per endpoint name. */
type SecretKey = `promptInsight.apiKey/${string}`;

interface StoredKey {
  key: string;
  origin: string;
}

/** No runtime vscode import: the origin rule is unit-tested with an in-memory SecretStorage. */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private id(endpoint: EndpointConfig): SecretKey {
    return `promptInsight.apiKey/${endpoint.name}`;
  }

  async set(endpoint: EndpointConfig, key: string): Promise<void> {
    const stored: StoredKey = { key, origin: safeOrigin(endpoint.baseUrl) };
    await this.secrets.store(this.id(endpoint), JSON.stringify(stored));
  }

  async clear(endpoint: EndpointConfig): Promise<void> {
    await this.secrets.delete(this.id(endpoint));
  }

  /** The key for this endpoint, or undefined (none stored, or the user declined a changed origin). */
  async get(endpoint: EndpointConfig, confirmOrigin: (storedOrigin: string, newOrigin: string) => Promise<boolean>): Promise<string | undefined> {
    const raw = await this.secrets.get(this.id(endpoint));
    if (!raw) return undefined;
    let stored: StoredKey;
    try {
      stored = JSON.parse(raw) as StoredKey;
      if (typeof stored.key !== 'string' || typeof stored.origin !== 'string') return undefined;
    } catch {
      return undefined;
    }
    const origin = safeOrigin(endpoint.baseUrl);
    if (stored.origin === origin) return stored.key;
    if (!(await confirmOrigin(stored.origin, origin))) return undefined;
    await this.secrets.store(this.id(endpoint), JSON.stringify({ key: stored.key, origin }));
    return stored.key;
  }
}

/** `https://host:port` of a URL, or the text itself when it is not one. */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
