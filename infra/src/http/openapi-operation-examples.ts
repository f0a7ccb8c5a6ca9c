/**
 * The example of each operation's JSON request body and success answer, as /docs shows them. Without one, a viewer
 * makes its own from the schema ("string" for an amount, 0 for a quantity): every example here is the route's own,
 * else one made from the document's schema (openapi-examples.ts) that the route's zod schema accepts, so what a
 * partner copies from /docs is what the server takes and answers.
 */
import type { z } from 'zod';
import { successEnvelope } from './envelope';
import { exampleOf, type JsonSchema } from './openapi-examples';
import type { RouteDef } from './route';

interface Document {
  paths?: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, JsonSchema> };
}
type Media = { schema: JsonSchema; example?: unknown };
type Operation = { requestBody?: { content: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> };

const operationOf = (doc: Document, def: RouteDef) => doc.paths?.[def.path]?.[def.method] as Operation | undefined;

/** The first example made from the schema that zod accepts: every property shown, else the required ones only. */
const madeExample = (media: Media, doc: Document, accepts: z.ZodType): unknown => {
  const schemas = doc.components?.schemas ?? {};
  const candidates = [exampleOf(media.schema, schemas), exampleOf(media.schema, schemas, { requiredOnly: true })];
  return candidates.find((c) => accepts.safeParse(c).success);
};

/**
 * Puts an example on every request body: the route's own, else a made one. A made one that zod refuses is left out
 * (scripts/src/openapi/examples.int.spec.ts names such a route: it then says its own `example`).
 */
export const addRequestExamples = (doc: Document, defs: RouteDef[]) => {
  for (const def of defs) {
    const media = def.body ? operationOf(doc, def)?.requestBody?.content['application/json'] : undefined;
    if (!media) continue;
    const example = def.example !== undefined ? def.example : madeExample(media, doc, def.body!);
    if (example !== undefined) media.example = example;
  }
};

/** Puts an example on every JSON success answer, its envelope included: the route's own `data`, else a made one. */
export const addResponseExamples = (doc: Document, defs: RouteDef[]) => {
  for (const def of defs) {
    if (!def.success.schema || def.success.contentType) continue;
    const media = operationOf(doc, def)?.responses?.[def.success.status]?.content?.['application/json'];
    if (!media) continue;
    const example = def.success.example !== undefined ? { success: true, data: def.success.example } : madeExample(media, doc, successEnvelope(def.success.schema));
    if (example !== undefined) media.example = example;
  }
};
