export { buildGolden, goldenStatus, goldenImageTag } from './golden.ts';
