#!/bin/sh
# A stand-in for a browser (`BROWSER=` of `wf ui --open`): writes the URL it is given
# to the file WF_TEST_OPENED names.
printf '%s\n' "$1" > "$WF_TEST_OPENED"
