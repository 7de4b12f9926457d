import { registerRecognizer } from '../recognizer.js';
import { OpenAiRecognizer } from './openai-recognizer.js';

// Settings are read when the recognizer is created, so a process running another engine needs none of them.
registerRecognizer('openai', () => new OpenAiRecognizer());
