import { canonicalPath, routedPath } from './gate-path';

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

describe('routedPath', () => {
  it('keeps an escaped slash inside its segment, where the router keeps it', () => {
    expect(routedPath('/api/sessions/..%2F..%2Fx/messages')).toBe(
      '/api/sessions/..%2f..%2fx/messages',
    );
    expect(canonicalPath('/api/sessions/..%2F..%2Fx/messages')).toBe('/x/messages');
    expect(routedPath('/api/resources/a%2Fb')).toBe('/api/resources/a%2fb');
    expect(routedPath('/api/resources/A%2Fb', true)).toBe('/api/resources/A%2Fb');
    expect(routedPath('/api/x%5C..%5Cy')).toBe('/api/x%5c..%5cy');
  });

  it('reads the other spellings of a route as canonicalPath does', () => {
    for (const spelling of [
      '/API/SESSIONS/',
      '//api//sessions',
      '/%61pi/%73essions',
      '/x/../api/sessions',
    ]) {
      expect([spelling, routedPath(spelling)]).toEqual([spelling, '/api/sessions']);
    }
  });
});
