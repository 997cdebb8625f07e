import { types, type CustomTypesConfig } from 'pg';

const TIMESTAMPTZ_OID = 1184;

/**
 * Type parsers for the store's reads that hand a `timestamptz` column over as the ISO 8601 text
 * `Date#toISOString` writes (what `savedAt` and `updatedAt` are), not as a `Date`: parsing every
 * row's time into a `Date` only to print it again was most of the client's cost of a full load.
 * Every other type parses as `pg` parses it.
 */
export const isoTimestamps: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? isoTimestampParser()
      : types.getTypeParser(oid, format as 'text')) as CustomTypesConfig['getTypeParser'],
};

/** A time as PostgreSQL prints it in UTC with `DateStyle` ISO: `2026-12-04 18:40:12.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * One column's parser. A time printed in UTC is rewritten as ISO text directly (milliseconds cut
 * as a `Date` cuts them); any other (a session time zone other than UTC, another `DateStyle`, a
 * year outside 4 digits) goes through `pg`'s own `Date` parse. The rows of one saved batch share
 * their time, so that slower path remembers the last text it converted.
 */
function isoTimestampParser(): (text: string) => string {
  const toDate = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date;
  let lastText: string | undefined;
  let lastIso = '';
  return (text) => {
    const utc = UTC_TEXT.exec(text);
    if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
    if (text !== lastText) {
      lastIso = toDate(text).toISOString();
      lastText = text;
    }
    return lastIso;
  };
}
