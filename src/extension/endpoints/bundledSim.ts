/**
 * The bundled simulated endpoint, started on first use as a child process (so its timers never
 * share an event loop with the measuring client) and stopped with the extension.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';

export class BundledSimulator implements vscode.Disposable {
  private child: ChildProcess | undefined;
  private url: Promise<string> | undefined;

  constructor(private readonly simulatorPath: string, private readonly log: vscode.LogOutputChannel) {}

  /** The simulator's base URL, starting it if needed. */
  start(scenarioPath: string | undefined): Promise<string> {
    this.url ??= new Promise<string>((resolve, reject) => {
      const args = ['sim', '--port', '0', ...(scenarioPath ? ['--scenario', scenarioPath] : [])];
      const child = fork(this.simulatorPath, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      this.child = child;
      let output = '';
      child.stdout!.on('data', (data: Buffer) => {
        output += data.toString();
        const match = /listening on (\S+)/.exec(output);
        if (match) {
          this.log.info(`Bundled simulated endpoint listening on ${match[1]}`);
          resolve(match[1]!);
        }
      });
      child.stderr!.on('data', (data: Buffer) => this.log.warn(`simulator: ${data.toString().trim()}`));
      child.on('exit', (code) => {
        this.child = undefined;
        this.url = undefined;
        reject(new Error(`The simulated endpoint stopped (exit code ${code}). ${output.trim()}`));
      });
    });
    return this.url;
  }

  dispose(): void {
    this.child?.kill();
    this.child = undefined;
  }
}
