// The app's search index: the listings a RAG app retrieves before it asks the model. Lyon's listing gives
// another price than the one the model states, so an answer there contradicts its passages.
'use strict';
const LISTINGS = {
  'Bellevue, WA': [{ id: 'bel-12', content: '12 Elm St, Bellevue: single-family house listed at $850,000.', score: 0.91 }],
  Lyon: [{ id: 'lyo-4', content: '4 Rue Garet, Lyon: single-family house listed at $790,000.', score: 0.88 }],
  Osaka: [{ id: 'osa-7', content: '7-2 Kita, Osaka: single-family house listed at $850,000.', score: 0.86 }],
};
/** The documents a search for homes in `city` returns: `{id, content, score}`. */
const searchListings = (city) => LISTINGS[city] ?? [];
/** The messages with the retrieved passages placed in the system message, as a RAG prompt does. */
const withPassages = (messages, documents) => [{ ...messages[0], content: `${messages[0].content}\n\nListings:\n${documents.map((d) => d.content).join('\n')}` }, ...messages.slice(1)];
module.exports = { searchListings, withPassages };
