import type { TextDocument } from 'vscode-languageserver-textdocument';
import { fileNameOfUri, filePathOfUri } from './uri';
import { analyzePromptText, type AnalysisOptions, type FileAnalysis } from '../core/analysis';
import type { PositionMapper } from '../core/formats/lineIndex';
import { TokenCounter } from '../core/tokens/counter';

export interface AnalyzedDocument {
  version: number;
  analysis: FileAnalysis;
  /** The document itself: it maintains line offsets across incremental edits, so nothing is rebuilt. */
  lines: PositionMapper;
  text: string;
}

/**
 * One analysis per open document version, computed on demand and shared by hover, CodeLens,
 * symbols and diagnostics. The token counter's segment cache makes re-analysis after an edit
 * cost only the segment that changed.
 */
export class DocumentAnalyses {
  private readonly entries = new Map<string, { version: number; promise: Promise<AnalyzedDocument> }>();
  readonly counter = new TokenCounter();

  constructor(private options: AnalysisOptions) {}

  setOptions(options: AnalysisOptions): void {
    this.options = options;
    this.entries.clear();
  }

  get(document: TextDocument): Promise<AnalyzedDocument> {
    const entry = this.entries.get(document.uri);
    if (entry && entry.version === document.version) return entry.promise;
    const text = document.getText();
    const version = document.version;
    const filePath = filePathOfUri(document.uri);
    const promise = analyzePromptText(fileNameOfUri(document.uri), text, this.counter, { ...this.options, ...(filePath ? { filePath } : {}) }).then((analysis) => ({
      version,
      analysis,
      lines: document,
      text,
    }));
    this.entries.set(document.uri, { version, promise });
    return promise;
  }

  forget(uri: string): void {
    this.entries.delete(uri);
  }
}
