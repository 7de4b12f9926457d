// Registers the recognition engines that RECOGNIZER can select.
export {};
