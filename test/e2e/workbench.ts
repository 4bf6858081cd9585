/**
 * The set-up every editor test shares: a code-server with the packaged extension and a workspace
 * (codeServer.ts), and Chromium showing its workbench. `prepare` runs between the server's start and
 * the browser's — a git repository built in the workspace, files the test writes — so the workbench
 * opens on them. Closed browser first, then the server.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openWorkbench } from './browser';
import { startCodeServer, type CodeServerOptions, type RunningCodeServer } from './codeServer';

/** Where editor tests leave their screenshots. */
export const ARTIFACTS = 'test-artifacts/e2e';

export interface Workbench {
  server: RunningCodeServer;
  browser: Browser;
  page: Page;
  close: () => Promise<void>;
}

export async function startWorkbench(
  files: Record<string, string>,
  userSettings: Record<string, unknown> = {},
  options: CodeServerOptions & { prepare?: (workspace: string) => void | Promise<void> } = {},
): Promise<Workbench> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const { prepare, ...serverOptions } = options;
  const server = await startCodeServer(files, userSettings, serverOptions);
  let browser: Browser | undefined;
  try {
    await prepare?.(server.workspace);
    browser = await launchChromium();
    const page = await openWorkbench(browser, server.url);
    const opened = browser;
    return { server, browser, page, close: async () => { await opened.close(); await server.stop(); } };
  } catch (error) {
    await browser?.close();
    await server.stop();
    throw error;
  }
}
