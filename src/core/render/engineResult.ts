/** What the template engines give back, across the render process's pipe (plain JSON data only). */

/** What a template engine gives back: the rendered text and the variables it found no value for, or why it failed. */
export type EngineResult = { text: string; missing: string[] } | { error: string };

/** A Dotprompt render's message: its text, its media parts (counted, not tokenized), and whether it came from `{{history}}`. */
export interface DotpromptMessage {
  role: string;
  text: string;
  mediaParts: number;
  /** From `{{history}}` (history messages come from the caller's data; none when counting). */
  history: boolean;
}

export type DotpromptResult =
  | {
      messages: DotpromptMessage[];
      model?: string;
      missing: string[];
      /** Schemas the file names (`input.schema: Recipe`) that the application registers (Genkit `defineSchema`): rendered without them, not checked. */
      uncheckedSchemas?: string[];
    }
  | { error: string };
