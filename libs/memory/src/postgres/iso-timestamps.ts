import { types, type CustomTypesConfig } from 'pg';

const TIMESTAMPTZ_OID = 1184;

/**
 * Type parsers for the store's reads that hand a `timestamptz` column over as the ISO 8601 text
 * `Date#toISOString` writes (what `savedAt` and `updatedAt` are), not as a `Date`: parsing every
 * row's time into a `Date` only to print it again was most of the client's cost of a full load.
 * The rows of one saved batch share their time, so each column remembers the last text it turned
 * into ISO and converts only when it changes. Every other type parses as `pg` parses it.
 */
export const isoTimestamps: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? isoTimestampParser()
      : types.getTypeParser(oid, format as 'text')) as CustomTypesConfig['getTypeParser'],
};

/** One column's parser: the default `Date` parse printed as ISO, remembering the last value. */
function isoTimestampParser(): (text: string) => string {
  const toDate = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date;
  let lastText: string | undefined;
  let lastIso = '';
  return (text) => {
    if (text !== lastText) {
      lastIso = toDate(text).toISOString();
      lastText = text;
    }
    return lastIso;
  };
}
