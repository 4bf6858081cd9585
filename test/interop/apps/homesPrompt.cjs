// The messages the example app sends: examples/homes/homes.prompty (revision "with the rule") as it renders.
'use strict';
const homesSystem = (city) => `You are a real-estate assistant for ${city}. Answer with a short list of listings,
one per line, each with its property type, price and address.

Rules:
- When the user says "homes", it means single-family (detached) houses only.
  Never list apartments, condos or townhouses for "homes".
- If nothing matches, say so plainly instead of suggesting other property types.`;
const homesMessages = (city, request) => [{ role: 'system', content: homesSystem(city) }, { role: 'user', content: request }];
module.exports = { homesSystem, homesMessages };
