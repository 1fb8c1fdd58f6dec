"""What a scene is written with: `slide.LectureSlide` (beats of narration, bookmarks, notes, the layout check)
and `spoken` (numbers and lists as a listener hears them). `seqanim/__init__.py` names the public part."""
