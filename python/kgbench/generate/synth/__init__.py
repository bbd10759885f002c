"""SynthKGQA generation (seed synthkgqa-gtsqa.txt; spec ``synthkgqa.md``)."""
