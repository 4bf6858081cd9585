import type { ModelTokenInfo } from '../tokens/models';
import type { CountedWith } from './requestCount';

/** The fields of a prompt's analysis that say how it was counted. */
export interface CountedPrompt {
  model: ModelTokenInfo;
  modelFromFile: boolean;
  encoding: string;
  countedWith: CountedWith;
  templateFrom?: string;
  exact: boolean;
}

/** What counted a prompt and how exact it is: one wording for hover, the status bar's tooltip and the CLI. */
export function countLabel(analysis: CountedPrompt): string {
  const model = analysis.modelFromFile ? analysis.model.model : `${analysis.model.model} (default model)`;
  const template = analysis.templateFrom ? `, chat template from ${analysis.templateFrom}` : '';
  if (analysis.countedWith === 'endpoint') return `${analysis.encoding} of the configured endpoint · exact for ${model}${template}`;
  if (analysis.countedWith === 'tokenizer') {
    return analysis.exact ? `${analysis.encoding} · exact for ${model}${template}` : `${analysis.encoding} · messages exact for ${model}, chat framing estimated`;
  }
  if (analysis.exact) return `${analysis.encoding} · exact for ${model}`;
  return `${analysis.encoding} · estimate for ${model}: ${analysis.model.family} tokenizer not available, counted with ${analysis.encoding}`;
}
