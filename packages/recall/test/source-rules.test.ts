import { fileURLToPath } from 'node:url';
import { describeSourceRules } from '@platform-api/test-support/source-rules';

// The README's layer order against every import of src, and no function of src over a screenful.
describeSourceRules(fileURLToPath(new URL('..', import.meta.url)));
