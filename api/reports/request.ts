// The report request, read by POST /v1/reports and by `pdi report create`: who the report is about.
import { ValidationError } from '../../lib/errors.js';
import { IDENTIFIER_TYPES, type IdentifierType } from '../../lib/identifiers.js';
import { entityIdentifierOf } from '../middleware/validate.js';

export interface ReportRequest {
  entity_identifier: string;
  identifier_type: IdentifierType;
}

const REQUEST_MEMBERS = new Set(['entity_identifier', 'identifier_type']);

/** The body of POST /v1/reports (and of the monitored-entity form), or a 422 naming the field. */
export function reportRequestOf(body: unknown): ReportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('The request body must be a JSON object with entity_identifier and identifier_type');
  }
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !REQUEST_MEMBERS.has(k));
  if (unknown !== undefined) throw new ValidationError(`${unknown} is not a member of a report request (entity_identifier, identifier_type)`);
  const type = b.identifier_type;
  if (type === undefined) throw new ValidationError('identifier_type is required');
  if (typeof type !== 'string' || !(IDENTIFIER_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError('identifier_type must be one of afm, name, ada');
  }
  const value = entityIdentifierOf(b.entity_identifier, type as IdentifierType);
  return { entity_identifier: value, identifier_type: type as IdentifierType };
}
