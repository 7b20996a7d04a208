/** Errors name the component and the fix: `[vmhub] [adapter-example] xwd … : run the X server at depth 24`. */
import { adapterErrors } from '@vmhub/core/adapter-kit';

export const errors = adapterErrors('adapter-example');
export const exampleError = errors.error;
