import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import {
  createProtocolConnection, DidChangeTextDocumentNotification, DidOpenTextDocumentNotification, ExitNotification,
  InitializeRequest, InitializedNotification, PublishDiagnosticsNotification, ShutdownRequest,
  StreamMessageReader, StreamMessageWriter, type Diagnostic, type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';

/** `PROMPT_INSIGHT_TEST_DIST`: another build's server (test/fixtures/cli.ts). */
export const SERVER_PATH = resolve(process.env.PROMPT_INSIGHT_TEST_DIST ?? 'dist', 'server.js');

/** The real language server in its own process, spoken to over stdio as VS Code would. */
export class LspHarness {
  readonly connection: ProtocolConnection;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly diagnostics = new Map<string, { version?: number; diagnostics: Diagnostic[] }>();
  private readonly waiters: { uri: string; resolve: (d: Diagnostic[]) => void; minVersion: number }[] = [];
  stderr = '';
  readonly logs: string[] = [];
  /** The same messages with their LSP MessageType (1 error, 2 warning, 3 info, 4 log). */
  readonly logMessages: { type: number; message: string }[] = [];
  exited: Promise<number | null>;

  constructor() {
    this.child = spawn(process.execPath, [SERVER_PATH, '--stdio'], { stdio: 'pipe' });
    this.child.stderr.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.connection = createProtocolConnection(new StreamMessageReader(this.child.stdout), new StreamMessageWriter(this.child.stdin));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.diagnostics.set(params.uri, { version: params.version, diagnostics: params.diagnostics });
      for (const waiter of [...this.waiters]) {
        if (waiter.uri === params.uri && (params.version ?? 0) >= waiter.minVersion) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(params.diagnostics);
        }
      }
    });
    this.connection.onNotification('window/logMessage', (params: { type: number; message: string }) => {
      this.logs.push(params.message);
      this.logMessages.push(params);
    });
    this.connection.listen();
  }

  /** The server's process id (its children are read from /proc). */
  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts the server as the extension does in a trusted workspace (`workspaceTrusted: true`), unless
   * `trust` is 'as-given': then the options go as they are (nothing said = Restricted Mode).
   */
  async initialize(initializationOptions: Record<string, unknown> = {}, trust: 'trusted' | 'as-given' = 'trusted'): Promise<unknown> {
    const result = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: { textDocument: { hover: { contentFormat: ['markdown'] } } },
      initializationOptions: trust === 'trusted' ? { workspaceTrusted: true, ...initializationOptions } : initializationOptions,
    });
    await this.connection.sendNotification(InitializedNotification.type, {});
    return result;
  }

  /** Opens a document and resolves with its first published diagnostics. */
  async open(fileName: string, text: string, languageId = 'plaintext'): Promise<{ uri: string; diagnostics: Diagnostic[] }> {
    const uri = pathToFileURL(resolve('/tmp/prompt-insight-test', fileName)).toString();
    const published = this.nextDiagnostics(uri, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
    return { uri, diagnostics: await published };
  }

  async change(uri: string, version: number, changes: { range?: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }[]): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes as never });
  }

  nextDiagnostics(uri: string, minVersion: number): Promise<Diagnostic[]> {
    return new Promise((resolve) => this.waiters.push({ uri, resolve, minVersion }));
  }

  async dispose(): Promise<void> {
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      // already gone
    }
    const exited = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r('timeout'), 3000))]);
    if (exited === 'timeout') this.child.kill('SIGKILL');
    this.connection.dispose();
  }
}
