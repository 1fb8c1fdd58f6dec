"""One module per lecture part; each scene is a `LectureSlide` that reads only data/."""
