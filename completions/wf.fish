complete --keep-order --exclusive --command wf --arguments "(COMPLETE=fish wf -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
