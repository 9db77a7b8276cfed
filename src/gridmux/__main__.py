from gridmux.app import main

main()
