// Registers the recognition engines that RECOGNIZER can select.
import './local.js';
import './openai.js';
