import { canonicalPath } from './gate-path';

describe('canonicalPath', () => {
  it('reads every spelling of a route as the route', () => {
    for (const spelling of [
      '/api/sessions',
      '/API/SESSIONS',
      '/Api/sEssions',
      '//api//sessions',
      '/api/sessions/',
      '/api/sessions//',
      '/%61pi/%73essions',
      '/%2561pi/sessions',
      '/%41PI/sessions',
      '/x/../api/./sessions',
      '\\api\\sessions',
      'api/sessions',
    ]) {
      expect([spelling, canonicalPath(spelling)]).toEqual([spelling, '/api/sessions']);
    }
  });

  it('keeps other paths apart and leaves escapes that spell no ASCII alone', () => {
    expect(canonicalPath('/')).toBe('/');
    expect(canonicalPath('/apix/sessions')).toBe('/apix/sessions');
    expect(canonicalPath('/assets/%E2%82%AC.js')).toBe('/assets/%e2%82%ac.js');
    expect(canonicalPath('/%zz/api')).toBe('/%zz/api');
  });
});
