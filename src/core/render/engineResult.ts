/** What a template engine gives back: the rendered text and the variables it found no value for, or why it failed. */
export type EngineResult = { text: string; missing: string[] } | { error: string };
