// Imported by name so the Arco style plugin adds Message's stylesheet to this lazily loaded chunk.
import { Message } from '@arco-design/web-react';

export { Message };
