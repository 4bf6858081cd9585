/** Converts UTF-16 offsets to zero-based line/character positions (LSP convention) and back. */
export interface LinePosition {
  line: number;
  character: number;
}

/** What presenting ranges needs; the server passes its TextDocument, which keeps line offsets incrementally. */
export interface PositionMapper {
  positionAt(offset: number): LinePosition;
  offsetAt(position: LinePosition): number;
}

export function rangeAt(mapper: PositionMapper, range: { start: number; end: number }): { start: LinePosition; end: LinePosition } {
  return { start: mapper.positionAt(range.start), end: mapper.positionAt(range.end) };
}

export class LineIndex implements PositionMapper {
  private readonly lineStarts: number[];

  constructor(private readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): LinePosition {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: clamped - this.lineStarts[lo]! };
  }

  offsetAt(position: LinePosition): number {
    if (position.line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[Math.max(0, position.line)]!;
    return Math.min(start + Math.max(0, position.character), this.text.length);
  }
}
