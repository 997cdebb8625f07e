/**
 * The early-load script: starts the first view's API calls and draws its first rows from them
 * (`app/prefetch.ts`) while the app's code still downloads. The build inlines it into
 * `index.html` (`vite.inline.mts`), so a new browser needs the page and the API answers, nothing
 * else, to show rows; it hands the app its requests through `lib/early-load.ts`.
 */
import { prefetchFirstView } from './app/prefetch';
import { earlyLoad } from './lib/early-load';

Object.assign(earlyLoad(), prefetchFirstView());
