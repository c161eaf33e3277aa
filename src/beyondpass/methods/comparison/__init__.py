"""The comparison methodology (Ságodi, Siket, Ferenc): compare two models phase by phase."""
