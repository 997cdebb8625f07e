import { Client } from 'pg';
import { testDatabaseUrl } from '@agent-memory/test-support/services';
import { isoTimestamps } from './iso-timestamps';

describe('isoTimestamps', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    // Far from UTC, with a half-hour offset: the text PostgreSQL sends carries it.
    await client.query(`SET TIME ZONE 'Asia/Kathmandu'`);
  });
  afterAll(() => client.end());

  it('hands timestamptz columns over as the ISO text Date#toISOString writes', async () => {
    const times = [
      '2026-12-04T18:40:12.123Z',
      '2026-12-04T18:40:12.123Z',
      '1999-01-01T00:00:00.000Z',
      '2026-12-04T18:40:12.123Z',
      '2026-03-29T01:30:00.500Z',
    ];
    const { rows } = await client.query<{ at: unknown; also: unknown }>({
      text: `SELECT t::timestamptz AS at, t::timestamptz AS also FROM unnest($1::text[]) WITH ORDINALITY AS x(t, o) ORDER BY o`,
      values: [times],
      types: isoTimestamps,
    });
    // Repeats and changes alike, in both columns: the remembered last value never leaks.
    expect(rows.map((row) => row.at)).toEqual(times);
    expect(rows.map((row) => row.also)).toEqual(times);
  });

  it('reads times printed in UTC the same as through a Date', async () => {
    await client.query(`SET TIME ZONE 'UTC'`);
    try {
      const texts = [
        '2026-12-04 18:40:12+00',
        '2026-12-04 18:40:12.1+00',
        '2026-12-04 18:40:12.12+00',
        '2026-12-04 18:40:12.999999+00',
        '0999-01-01 00:00:00+00',
        '12026-01-01 00:00:00+00',
      ];
      const { rows } = await client.query<{ at: unknown }>({
        text: `SELECT t::timestamptz AS at FROM unnest($1::text[]) WITH ORDINALITY AS x(t, o) ORDER BY o`,
        values: [texts],
        types: isoTimestamps,
      });
      expect(rows.map((row) => row.at)).toEqual([
        '2026-12-04T18:40:12.000Z',
        '2026-12-04T18:40:12.100Z',
        '2026-12-04T18:40:12.120Z',
        '2026-12-04T18:40:12.999Z',
        '0999-01-01T00:00:00.000Z',
        '+012026-01-01T00:00:00.000Z',
      ]);
    } finally {
      await client.query(`SET TIME ZONE 'Asia/Kathmandu'`);
    }
  });

  it('keeps microseconds out, as a Date does, and parses other types as pg does', async () => {
    const { rows } = await client.query<{ at: unknown; n: unknown; doc: unknown; day: unknown }>({
      text: `SELECT '2026-12-04 18:40:12.123999+00'::timestamptz AS at, 7::int AS n,
        '{"a":[1]}'::jsonb AS doc, '2026-12-04 10:00'::timestamp AS day`,
      types: isoTimestamps,
    });
    expect(rows[0]).toEqual({
      at: '2026-12-04T18:40:12.123Z',
      n: 7,
      doc: { a: [1] },
      day: new Date(2026, 11, 4, 10, 0),
    });
  });
});
