"""The published video: the voices with their word timings (`voice`), captions on the words (`captions`),
a scene's narrated cut (`narrate`) and frames read back from videos (`frames`)."""
