"""The stages that make a lecture's files: an experiment (`experiments`: precompute/ into data/) and a scene
(`render`: data/ into its video, slide files and report). The narrated cut is `seqanim.publish.narrate`; a
deck is `seqanim.decks`."""
