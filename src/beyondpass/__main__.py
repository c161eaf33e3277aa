from beyondpass.cli.app import main

main()
